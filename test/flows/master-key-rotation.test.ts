import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { luhnCheckDigit } from '../../src/lib/cards/luhn.ts';
import { Keyring } from '../../src/vault/keyring.ts';
import { AwsKmsMasterKey } from '../../src/vault/master-keys/aws-kms-master-key.ts';
import { LocalMasterKey, type MasterKey } from '../../src/vault/master-keys/master-key.ts';
import { VaultTransitMasterKey } from '../../src/vault/master-keys/vault-transit-master-key.ts';
import { rewrapDataKeys, rewrapInstanceSecrets, rewrapTotpSecrets } from '../../src/vault/rotate.ts';
import { Vault } from '../../src/vault/vault.ts';
import { type VaultTransitFake, startVaultTransitFake } from '../fakes/vault-transit-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { type LocalKms, motoAvailable, startLocalKms } from '../helpers/moto-kms.ts';
import { card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Issue 56: the master key moves (the key itself → a KMS key → another one) with the existing
 * rotation (`svc keys rotate-vault`'s re-wrap) while payments run, and no card is lost. A rolling
 * deploy gives every server the new key as current and the old ones as previous: here one app's
 * keyring, whose current key the test moves from stage to stage (`Switch`), with every stage's key
 * as a previous one. After each stage, every data key and instance secret is wrapped by the new
 * key, and a vault holding the new key alone opens every card stored before and during the move.
 */

class Switch implements MasterKey {
  constructor(public target: MasterKey) {}
  get provider() {
    return this.target.provider;
  }
  get id() {
    return this.target.id;
  }
  opens(masterKeyId: string) {
    return this.target.opens(masterKeyId);
  }
  generateDataKey(aad: string) {
    return this.target.generateDataKey(aad);
  }
  wrap(plaintext: Buffer, aad: string) {
    return this.target.wrap(plaintext, aad);
  }
  unwrap(wrapped: string, masterKeyId: string, aad: string) {
    return this.target.unwrap(wrapped, masterKeyId, aad);
  }
}

let serial = 0;
/** A new Luhn-valid Visa number each call. */
const nextNumber = () => {
  const body = `4111${String(++serial).padStart(11, '0')}`;
  return `${body}${luhnCheckDigit(body)}`;
};

interface Scenario {
  t: TestApp;
  current: Switch;
  keyring: Keyring;
  merchants: string[];
  /** Stored payment method id → merchant account and card number. */
  stored: Map<string, { merchant: string; number: string }>;
  transactions: number;
  /** Payments answered while a re-wrap was under way (the two did overlap). */
  duringRotation: number;
  rotating: boolean;
}

async function storeCard(s: Scenario, merchant: string): Promise<void> {
  const number = nextNumber();
  const res = await s.t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: merchant,
    payload: { method: 'card', number, expiration_date: '12/40' },
  });
  expect(res.statusCode, res.body).toBe(201);
  s.stored.set(res.json().id, { merchant, number });
  if (s.rotating) s.duringRotation += 1;
}

async function pay(s: Scenario, merchant: string): Promise<void> {
  const res = await createTransaction(s.t, merchant, { amount: 1299, payment_method: card(nextNumber()) });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().status).toBe('authorization_succeeded');
  s.transactions += 1;
  if (s.rotating) s.duringRotation += 1;
}

/** Payments of every merchant account, and new accounts (whose first payment makes data keys), for `rounds` rounds. */
async function paymentsRun(s: Scenario, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    const { merchantAccountId } = await merchantWithMockCard(s.t);
    s.merchants.push(merchantAccountId);
    await Promise.all(s.merchants.flatMap((merchant) => [storeCard(s, merchant), pay(s, merchant)]));
  }
}

async function start(previous: MasterKey[]): Promise<Scenario> {
  const envKey = new LocalMasterKey(randomBytes(32));
  const current = new Switch(envKey);
  const keyring = new Keyring(current, [envKey, ...previous]);
  const t = await buildTestApp({}, { runtime: { keyring } });
  const s: Scenario = {
    t,
    current,
    keyring,
    merchants: [],
    stored: new Map(),
    transactions: 0,
    duringRotation: 0,
    rotating: false,
  };
  for (let i = 0; i < 4; i += 1) s.merchants.push((await merchantWithMockCard(t)).merchantAccountId);
  await paymentsRun(s, 1);
  expect(await masterKeyIds(s)).toEqual([envKey.id]);
  return s;
}

async function masterKeyIds(s: Scenario): Promise<string[]> {
  const keys = await s.t.deps.db.selectFrom('vault_data_keys').select('master_key_id').distinct().execute();
  const secrets = await s.t.deps.db
    .selectFrom('instance_settings')
    .select('master_key_id')
    .where('master_key_id', 'is not', null)
    .distinct()
    .execute();
  return [...new Set([...keys, ...secrets].map((row) => row.master_key_id!))].sort();
}

/** Moves the servers to `next`, then re-wraps (small batches) while payments run; checks what the new key alone opens. */
async function rotateDuringPayments(s: Scenario, next: MasterKey): Promise<void> {
  s.current.target = next;
  const before = s.stored.size;
  let rewrapped = 0;
  s.duringRotation = 0;
  s.rotating = true;
  await Promise.all([
    paymentsRun(s, 3),
    (async () => {
      try {
        rewrapped += await rewrapDataKeys(s.t.deps.db, s.keyring, 2);
        rewrapped += await rewrapInstanceSecrets(s.t.deps.db, s.keyring, 2);
        rewrapped += await rewrapTotpSecrets(s.t.deps.db, s.keyring, 2);
      } finally {
        s.rotating = false;
      }
    })(),
  ]);
  expect(rewrapped).toBeGreaterThan(0);
  expect(s.duringRotation, 'payments answered while the re-wrap ran').toBeGreaterThan(0);
  expect(s.stored.size).toBeGreaterThan(before);
  expect(await masterKeyIds(s)).toEqual([next.id]);
  // The new key alone: no previous key, a cold cache.
  const alone = new Vault(new Keyring(next));
  const rows = await s.t.deps.db
    .selectFrom('payment_methods')
    .select(['merchant_account_id', 'id', 'number_ciphertext', 'number_key_id'])
    .where('number_ciphertext', 'is not', null)
    .execute();
  const opened = new Map<string, string>();
  for (const row of rows)
    opened.set(
      row.id,
      await alone.decrypt(
        s.t.deps.db,
        row.merchant_account_id,
        { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
        { table: 'payment_methods', column: 'number', rowId: row.id },
      ),
    );
  for (const [id, { number }] of s.stored) expect(opened.get(id), `payment method ${id}`).toBe(number);
}

describe.skipIf(!motoAvailable)('security (env key → AWS KMS key A → key B while payments run; moto)', () => {
  let kms: LocalKms;
  let s: Scenario;
  let keyA: AwsKmsMasterKey;
  let keyB: AwsKmsMasterKey;

  beforeAll(async () => {
    kms = await startLocalKms();
    const options = { region: kms.region, endpoint: kms.endpoint, credentials: kms.credentials };
    // Key A by its alias: the stored id is the ARN KMS resolves it to.
    await kms.createKey('svc-a');
    keyA = await AwsKmsMasterKey.open('alias/svc-a', options);
    keyB = await AwsKmsMasterKey.open(await kms.createKey(), options);
    s = await start([keyA, keyB]);
  }, 120_000);
  afterAll(async () => {
    await s?.t.close();
    await kms?.stop();
  });

  it('moves every data key and instance secret from the env key to KMS key A; every card opens with key A alone', async () => {
    await rotateDuringPayments(s, keyA);
    expect(keyA.id).toMatch(/^aws-kms:arn:aws:kms:us-east-1:\d+:key\//);
    const wrapped = await s.t.deps.db.selectFrom('vault_data_keys').select('wrapped_key').execute();
    // KMS ciphertext blobs (base64), not the env key's `v1.` seal.
    expect(wrapped.every((row) => !row.wrapped_key.startsWith('v1.'))).toBe(true);
  }, 120_000);

  it('moves them from KMS key A to key B; every card opens with key B alone, and key A opens none', async () => {
    await rotateDuringPayments(s, keyB);
    const row = await s.t.deps.db.selectFrom('vault_data_keys').selectAll().limit(1).executeTakeFirstOrThrow();
    await expect(
      new Keyring(keyA).unwrap(
        row.wrapped_key,
        keyA.id,
        `vault_data_keys:${row.merchant_account_id}:${row.id}:${row.purpose}`,
      ),
    ).rejects.toThrow(/AWS KMS: Decrypt/);
    expect(s.transactions).toBeGreaterThan(20);
  }, 120_000);
});

describe('security (env key → Vault transit key, version 1 → 2, while payments run)', () => {
  let vault: VaultTransitFake;
  let s: Scenario;
  let v1: VaultTransitMasterKey;

  beforeAll(async () => {
    vault = await startVaultTransitFake();
    vault.createKey('svc-cards');
    const options = { address: vault.url, token: vault.token, namespace: null, mount: vault.mount };
    v1 = await VaultTransitMasterKey.open('svc-cards', options);
    s = await start([v1]);
  }, 120_000);
  afterAll(async () => {
    await s?.t.close();
    await vault?.close();
  });

  it('moves every data key to the transit key; every card opens with it alone', async () => {
    await rotateDuringPayments(s, v1);
    expect(v1.id).toBe('vault-transit:transit/svc-cards:v1');
    expect(vault.calls.encrypt).toBeGreaterThan(0);
  }, 120_000);

  it('after the transit key is rotated in Vault, moves every data key to version 2', async () => {
    vault.rotateKey('svc-cards');
    const v2 = await VaultTransitMasterKey.open('svc-cards', {
      address: vault.url,
      token: vault.token,
      namespace: null,
      mount: vault.mount,
    });
    expect(v2.id).toBe('vault-transit:transit/svc-cards:v2');
    await rotateDuringPayments(s, v2);
    const wrapped = await s.t.deps.db.selectFrom('vault_data_keys').select('wrapped_key').execute();
    expect(wrapped.every((row) => row.wrapped_key.startsWith('vault:v2:'))).toBe(true);
  }, 120_000);
});
