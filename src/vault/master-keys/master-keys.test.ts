import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startVaultTransitFake, type VaultTransitFake } from '../../../test/fakes/vault-transit-fake.ts';
import { type LocalKms, motoAvailable, startLocalKms } from '../../../test/helpers/moto-kms.ts';
import { loadConfig } from '../../config.ts';
import { Keyring, loadKeyring, MASTER_KEY_FILE } from '../keyring.ts';
import { Vault } from '../vault.ts';
import { AwsKmsMasterKey } from './aws-kms-master-key.ts';
import { LocalMasterKey, type MasterKey } from './master-key.ts';
import { VaultTransitMasterKey } from './vault-transit-master-key.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-master-keys-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('vault-transit (a fake from Vault API documentation)', () => {
  let vault: VaultTransitFake;
  const options = () => ({ address: vault.url, token: vault.token, namespace: null, mount: vault.mount });
  beforeAll(async () => {
    vault = await startVaultTransitFake();
    vault.createKey('cards');
    vault.createKey('signing', 'ed25519');
  });
  afterAll(() => vault.close());

  it('wraps and unwraps bound to the associated data; another binding does not open', async () => {
    const key = await VaultTransitMasterKey.open('cards', options());
    const secret = randomBytes(32);
    const { wrapped, masterKeyId } = await key.wrap(secret, 'vault_data_keys:m1:k1:encryption');
    expect(wrapped).toMatch(/^vault:v1:/);
    expect(masterKeyId).toBe('vault-transit:transit/cards:v1');
    expect(await key.unwrap(wrapped, masterKeyId, 'vault_data_keys:m1:k1:encryption')).toEqual(secret);
    await expect(key.unwrap(wrapped, masterKeyId, 'vault_data_keys:m2:k1:encryption')).rejects.toThrow(
      'Vault transit: POST /v1/transit/decrypt/cards answered 400: cipher: message authentication failed',
    );
  });

  it('refuses at start-up a missing key, a key that cannot encrypt with associated data, and a bad token, never quoting the token', async () => {
    await expect(VaultTransitMasterKey.open('absent', options())).rejects.toThrow(
      'Vault transit: GET /v1/transit/keys/absent answered 404',
    );
    await expect(VaultTransitMasterKey.open('signing', options())).rejects.toThrow(
      /type ed25519; it must be aes256-gcm96/,
    );
    const wrongToken = `hvs.${randomBytes(12).toString('hex')}`;
    const error = await VaultTransitMasterKey.open('cards', { ...options(), token: wrongToken }).catch((e: Error) => e);
    expect((error as Error).message).toBe('Vault transit: GET /v1/transit/keys/cards answered 403: permission denied');
    expect((error as Error).message).not.toContain(wrongToken);
    expect(vault.requests.at(-1)?.headers['x-vault-token']).toBe(wrongToken);
  });

  it('fails a call while Vault is down with an error that carries neither key nor token', async () => {
    const key = await VaultTransitMasterKey.open('cards', options());
    const secret = randomBytes(32);
    vault.failing = true;
    try {
      const error = (await key.wrap(secret, 'aad').catch((e: Error) => e)) as Error;
      expect(error.message).toBe('Vault transit: POST /v1/transit/encrypt/cards answered 503: Vault is sealed');
      for (const leak of [secret.toString('base64'), secret.toString('hex'), vault.token])
        expect(error.message).not.toContain(leak);
    } finally {
      vault.failing = false;
    }
  });
});

describe.skipIf(!motoAvailable)('aws-kms (moto)', () => {
  let kms: LocalKms;
  beforeAll(async () => {
    kms = await startLocalKms();
  }, 60_000);
  afterAll(() => kms?.stop());
  const options = () => ({ region: kms.region, endpoint: kms.endpoint, credentials: kms.credentials });

  it('resolves an alias to the key ARN, has KMS generate data keys, and binds them to their encryption context', async () => {
    const arn = await kms.createKey('svc-unit');
    const key = await AwsKmsMasterKey.open('alias/svc-unit', options());
    expect(key.id).toBe(`aws-kms:${arn}`);
    const made = await key.generateDataKey('vault_data_keys:m1:k1:encryption');
    expect(made.plaintext).toHaveLength(32);
    expect(made.masterKeyId).toBe(key.id);
    expect(await key.unwrap(made.wrapped, made.masterKeyId, 'vault_data_keys:m1:k1:encryption')).toEqual(
      made.plaintext,
    );
    await expect(key.unwrap(made.wrapped, made.masterKeyId, 'vault_data_keys:m2:k1:encryption')).rejects.toThrow(
      /^AWS KMS: Decrypt with arn:aws:kms:.* failed: InvalidCiphertextException/,
    );
  });

  it('is chosen by VAULT_MASTER_KEY_PROVIDER=aws-kms, with credentials from the AWS SDK default chain', async () => {
    const arn = await kms.createKey();
    vi.stubEnv('AWS_ACCESS_KEY_ID', kms.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', kms.credentials.secretAccessKey);
    try {
      const keyring = await loadKeyring(
        loadConfig({
          DATA_DIR: dir,
          VAULT_MASTER_KEY_PROVIDER: 'aws-kms',
          VAULT_KMS_KEY_ID: arn,
          VAULT_KMS_ENDPOINT: kms.endpoint,
        }),
      );
      expect(keyring.currentId).toBe(`aws-kms:${arn}`);
      expect(keyring.describe()).toBe(`aws-kms (aws-kms:${arn})`);
      const { wrapped, masterKeyId } = await keyring.wrap(Buffer.from('instance secret'), 'instance_settings:x');
      expect((await keyring.unwrap(wrapped, masterKeyId, 'instance_settings:x')).toString()).toBe('instance secret');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses at start-up a key KMS does not have, naming it', async () => {
    await expect(AwsKmsMasterKey.open('alias/nobody', options())).rejects.toThrow(
      /^AWS KMS: DescribeKey of alias\/nobody failed: NotFoundException/,
    );
  });
});

/** Counts the unwrappings that reach the master key. */
class Counting implements MasterKey {
  unwraps = 0;
  constructor(private readonly inner: MasterKey) {}
  get provider() {
    return this.inner.provider;
  }
  get id() {
    return this.inner.id;
  }
  opens(id: string) {
    return this.inner.opens(id);
  }
  generateDataKey(aad: string) {
    return this.inner.generateDataKey(aad);
  }
  wrap(plaintext: Buffer, aad: string) {
    return this.inner.wrap(plaintext, aad);
  }
  async unwrap(wrapped: string, id: string, aad: string) {
    this.unwraps += 1;
    return this.inner.unwrap(wrapped, id, aad);
  }
}

describe('the unwrapped data key cache', () => {
  it('asks the master key once per key and period (VAULT_DATA_KEY_CACHE_SECONDS), concurrent requests sharing one call', async () => {
    const { openTestRuntime } = await import('../../../test/helpers/build-test-app.ts');
    const { createMerchantAccount } = await import('../../../test/helpers/factories.ts');
    const { runtime, dispose } = await openTestRuntime();
    try {
      const master = new Counting(new LocalMasterKey(randomBytes(32)));
      let now = 1_000_000;
      const writer = new Vault(new Keyring(master), { cacheSeconds: 60, now: () => now });
      const merchant = await createMerchantAccount(runtime.deps);
      const where = { table: 'payment_methods', column: 'number', rowId: 'pm-1' };
      const sealed = await writer.encrypt(runtime.deps.db, merchant, '4111111111111111', where);
      const reader = new Vault(new Keyring(master), { cacheSeconds: 60, now: () => now });
      master.unwraps = 0;
      const opened = await Promise.all(
        Array.from({ length: 20 }, () => reader.decrypt(runtime.deps.db, merchant, sealed, where)),
      );
      expect(new Set(opened)).toEqual(new Set(['4111111111111111']));
      expect(master.unwraps).toBe(1);
      now += 59_000;
      await reader.decrypt(runtime.deps.db, merchant, sealed, where);
      expect(master.unwraps).toBe(1);
      now += 2_000;
      expect(reader.cachedKeys).toBe(0);
      await reader.decrypt(runtime.deps.db, merchant, sealed, where);
      expect(master.unwraps).toBe(2);
    } finally {
      await dispose();
    }
  });
});

describe('production start-up', () => {
  it("refuses the sandbox's generated master key as VAULT_MASTER_KEY, and takes another", async () => {
    const dataDir = fs.mkdtempSync(path.join(dir, 'data-'));
    const sandbox = await loadKeyring(loadConfig({ DATA_DIR: dataDir }));
    const sandboxKey = fs.readFileSync(path.join(dataDir, MASTER_KEY_FILE), 'utf8').trim();
    expect(sandbox.currentId).toBe(new LocalMasterKey(Buffer.from(sandboxKey, 'base64')).id);
    const production = (key: string) =>
      loadKeyring(loadConfig({ DATA_DIR: dataDir, ENVIRONMENT: 'production', VAULT_MASTER_KEY: key }));
    const refusal = (await production(sandboxKey).catch((e: Error) => e)) as Error;
    expect(refusal.message).toMatch(
      /^VAULT_MASTER_KEY: is the sandbox's generated key \(vault_master_key in DATA_DIR\)/,
    );
    expect(refusal.message).not.toContain(sandboxKey);
    const own = randomBytes(32).toString('base64');
    expect((await production(own)).currentId).toBe(new LocalMasterKey(Buffer.from(own, 'base64')).id);
  });
});
