import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../../src/vault/keyring.ts';
import { LocalMasterKey } from '../../src/vault/master-keys/master-key.ts';
import { VaultTransitMasterKey } from '../../src/vault/master-keys/vault-transit-master-key.ts';
import { wrapAad } from '../../src/vault/vault.ts';
import { startVaultTransitFake, type VaultTransitFake } from '../fakes/vault-transit-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Issue 56, "must hold": no key in logs, error messages, responses or tables. The master key is in
 * Vault transit (a fake), with an env key as the previous one: the scan looks for the Vault token,
 * the previous master key, every data key's plaintext (base64 and hex) and the card numbers, in
 * every answer, log line and table row, when payments succeed and when Vault is down.
 */
let vault: VaultTransitFake;
let t: TestApp;
let keyring: Keyring;
const previous = randomBytes(32);
const bodies: string[] = [];
const NUMBERS = ['4111111111111111', '5555555555554444', '378282246310005'];

beforeAll(async () => {
  vault = await startVaultTransitFake();
  vault.createKey('svc');
  const current = await VaultTransitMasterKey.open('svc', {
    address: vault.url,
    token: vault.token,
    namespace: null,
    mount: vault.mount,
  });
  keyring = new Keyring(current, [new LocalMasterKey(previous)]);
  t = await buildTestApp({}, { runtime: { keyring } });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await vault?.close();
});

async function dataKeyPlaintexts(): Promise<string[]> {
  const rows = await t.deps.db.selectFrom('vault_data_keys').selectAll().execute();
  const keys = await Promise.all(
    rows.map((row) =>
      keyring.unwrap(row.wrapped_key, row.master_key_id, wrapAad(row.merchant_account_id, row.id, row.purpose)),
    ),
  );
  return keys.flatMap((key) => [key.toString('base64'), key.toString('base64url'), key.toString('hex')]);
}

const secrets = async () => [
  vault.token,
  previous.toString('base64'),
  previous.toString('hex'),
  ...NUMBERS,
  ...(await dataKeyPlaintexts()),
];

describe('security', () => {
  it('puts no master key, Vault token, data key or card in any answer, log line or row while payments run', async () => {
    const { merchantAccountId } = await merchantWithMockCard(t);
    for (const number of NUMBERS) {
      const stored = await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId,
        payload: { method: 'card', number, expiration_date: '12/40' },
      });
      expect(stored.statusCode, stored.body).toBe(201);
      const paid = await createTransaction(t, merchantAccountId, { payment_method: card(number) });
      expect(paid.statusCode, paid.body).toBe(201);
      bodies.push(stored.body, paid.body);
    }
    expect(vault.calls.encrypt).toBeGreaterThan(0);
    await expectNoSecrets(t, bodies, await secrets());
  });

  it('answers a generic server error while Vault is down, and its log names Vault, not a key or the token', async () => {
    const { merchantAccountId } = await merchantWithMockCard(t);
    t.deps.vault.clearCache();
    vault.failing = true;
    try {
      const res = await t.request({
        method: 'POST',
        url: '/payment-methods',
        merchantAccountId,
        payload: { method: 'card', number: NUMBERS[0], expiration_date: '12/40' },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toMatchObject({ code: 'server_error' });
      expect(res.body).not.toContain('Vault');
      bodies.push(res.body);
    } finally {
      vault.failing = false;
    }
    expect(t.logs.join('\n')).toContain('Vault transit: POST /v1/transit/encrypt/svc answered 503');
    await expectNoSecrets(t, bodies, await secrets());
  });
});
