import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../test/helpers/factories.ts';
import type { Deps } from '../context.ts';
import { uuidv7 } from '../lib/ids.ts';
import { DecryptionError, open, seal } from './crypto.ts';
import { Keyring, MASTER_KEY_FILE } from './keyring.ts';
import { rewrapDataKeys } from './rotate.ts';
import { Vault } from './vault.ts';

let env: Awaited<ReturnType<typeof openTestRuntime>>;
let deps: Deps;
beforeAll(async () => {
  env = await openTestRuntime();
  deps = env.runtime.deps;
});
afterAll(async () => env.dispose());

const binding = (rowId = uuidv7()) => ({ table: 'payment_methods', column: 'number', rowId });

describe('happy', () => {
  it('seals and opens any text (property)', () => {
    const key = randomBytes(32);
    fc.assert(
      fc.property(
        fc.string(),
        fc.string(),
        (text, aad) => open(key, seal(key, Buffer.from(text), aad), aad).toString() === text,
      ),
    );
  });

  it('encrypts a card number under the merchant data key and decrypts it', async () => {
    const merchant = await createMerchantAccount(deps);
    const where = binding();
    const sealed = await deps.vault.encrypt(deps.db, merchant, '4111111111111111', where);
    expect(sealed.ciphertext).not.toContain('4111');
    expect(sealed.ciphertext).toMatch(/^v1\./);
    expect(await deps.vault.decrypt(deps.db, merchant, sealed, where)).toBe('4111111111111111');
    const keys = await deps.db
      .selectFrom('vault_data_keys')
      .selectAll()
      .where('merchant_account_id', '=', merchant)
      .execute();
    expect(keys.map((k) => k.purpose)).toEqual(['encryption']);
    expect(keys[0]!.id).toBe(sealed.keyId);
  });

  it('gives the same card the same fingerprint within a merchant account, another one elsewhere', async () => {
    const a = await createMerchantAccount(deps);
    const b = await createMerchantAccount(deps);
    const fa = await deps.vault.fingerprint(deps.db, a, '4111111111111111');
    expect(await deps.vault.fingerprint(deps.db, a, '4111111111111111')).toBe(fa);
    expect(await deps.vault.fingerprint(deps.db, b, '4111111111111111')).not.toBe(fa);
    expect(await deps.vault.fingerprint(deps.db, a, '4242424242424242')).not.toBe(fa);
    expect(fa).not.toContain('1111');
    // Several at once: the same digests, in order.
    expect(await deps.vault.fingerprints(deps.db, a, ['4242424242424242', '4111111111111111'])).toEqual([
      await deps.vault.fingerprint(deps.db, a, '4242424242424242'),
      fa,
    ]);
  });

  it('MACs a request under its own per-merchant key, card fields under another label, with no round trip once warm', async () => {
    const a = await createMerchantAccount(deps);
    const b = await createMerchantAccount(deps);
    const text = (macOf: (value: string) => string) => `POST /transactions\n{"number":"${macOf('4111111111111111')}"}`;
    const ma = await deps.vault.requestMac(deps.db, a, text);
    expect(ma).toMatch(/^[A-Za-z0-9_-]{43}$/);
    let reads = 0;
    const counting = deps.db.withPlugin({
      transformQuery: (args) => {
        reads++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    expect(await deps.vault.requestMac(counting, a, text)).toBe(ma);
    expect(reads).toBe(0);
    expect(await deps.vault.requestMac(deps.db, b, text)).not.toBe(ma);
    expect(
      await deps.vault.requestMac(
        deps.db,
        a,
        (macOf) => `POST /transactions\n{"number":"${macOf('4242424242424242')}"}`,
      ),
    ).not.toBe(ma);
    // The field MAC is not the request MAC of the same text, nor the card fingerprint.
    let field = '';
    await deps.vault.requestMac(deps.db, a, (macOf) => (field = macOf('x')));
    expect(field).not.toBe(await deps.vault.requestMac(deps.db, a, () => 'x'));
    expect(await deps.vault.requestMac(deps.db, a, (macOf) => macOf('4111111111111111'))).not.toBe(
      await deps.vault.fingerprint(deps.db, a, '4111111111111111'),
    );
    const keys = await deps.db
      .selectFrom('vault_data_keys')
      .select('purpose')
      .where('merchant_account_id', '=', a)
      .execute();
    expect(keys.map((k) => k.purpose).sort()).toEqual(['fingerprint', 'request']);
  });

  it('creates one data key even when many requests need it at once', async () => {
    const merchant = await createMerchantAccount(deps);
    const sealed = await Promise.all(
      Array.from({ length: 10 }, () => deps.vault.encrypt(deps.db, merchant, '5555555555554444', binding())),
    );
    expect(new Set(sealed.map((s) => s.keyId)).size).toBe(1);
  });
});

describe('the active key cache', () => {
  it('reads which key is active once outside a transaction, and never keeps a key a rolled-back transaction created', async () => {
    const vault = new Vault(deps.keyring);
    const merchant = await createMerchantAccount(deps);
    // Created inside a transaction that rolls back: the key is gone, and so must be the vault's memory of it.
    const undone = await deps.db
      .transaction()
      .execute(async (tx) => {
        const sealed = await vault.encrypt(tx, merchant, '4111111111111111', binding());
        throw Object.assign(new Error('roll back'), { sealed });
      })
      .catch((error: { sealed: { keyId: string } }) => error.sealed);
    const sealed = await vault.encrypt(deps.db, merchant, '4111111111111111', binding());
    expect(sealed.keyId).not.toBe(undone.keyId);
    const stored = await deps.db
      .selectFrom('vault_data_keys')
      .select('id')
      .where('merchant_account_id', '=', merchant)
      .execute();
    expect(stored.map((k) => k.id)).toEqual([sealed.keyId]);
    // Read outside a transaction: kept. Later encryptions ask the database nothing.
    let reads = 0;
    const counting = deps.db.withPlugin({
      transformQuery: (args) => {
        reads++;
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const again = await Promise.all(
      [1, 2, 3].map(() => vault.encrypt(counting, merchant, '4111111111111111', binding())),
    );
    expect(again.map((s) => s.keyId)).toEqual([sealed.keyId, sealed.keyId, sealed.keyId]);
    expect(reads).toBe(0);
  });
});

describe('errors', () => {
  it('detects tampering with the ciphertext', async () => {
    const merchant = await createMerchantAccount(deps);
    const where = binding();
    const sealed = await deps.vault.encrypt(deps.db, merchant, '4111111111111111', where);
    const parts = sealed.ciphertext.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    await expect(
      deps.vault.decrypt(deps.db, merchant, { ...sealed, ciphertext: parts.join('.') }, where),
    ).rejects.toBeInstanceOf(DecryptionError);
    await expect(
      deps.vault.decrypt(deps.db, merchant, { ...sealed, ciphertext: 'v1.x.y' }, where),
    ).rejects.toBeInstanceOf(DecryptionError);
  });

  it('refuses a ciphertext copied to another row, column or merchant account', async () => {
    const merchant = await createMerchantAccount(deps);
    const other = await createMerchantAccount(deps);
    const where = binding();
    const sealed = await deps.vault.encrypt(deps.db, merchant, '4111111111111111', where);
    await expect(deps.vault.decrypt(deps.db, merchant, sealed, binding())).rejects.toBeInstanceOf(DecryptionError);
    await expect(
      deps.vault.decrypt(deps.db, merchant, sealed, { ...where, column: 'security_code' }),
    ).rejects.toBeInstanceOf(DecryptionError);
    await expect(deps.vault.decrypt(deps.db, other, sealed, where)).rejects.toThrow();
  });

  it('refuses a data key moved to another merchant account (the wrapping is bound too)', async () => {
    const merchant = await createMerchantAccount(deps);
    const other = await createMerchantAccount(deps);
    const where = binding();
    const sealed = await deps.vault.encrypt(deps.db, merchant, '4111111111111111', where);
    await sql`INSERT INTO vault_data_keys (merchant_account_id, id, purpose, wrapped_key, master_key_id, active)
      SELECT ${other}, id, purpose, wrapped_key, master_key_id, false FROM vault_data_keys WHERE merchant_account_id = ${merchant}`.execute(
      deps.db,
    );
    const fresh = new Vault(deps.keyring);
    await expect(fresh.decrypt(deps.db, other, sealed, where)).rejects.toBeInstanceOf(DecryptionError);
    await sql`DELETE FROM vault_data_keys WHERE merchant_account_id = ${other}`.execute(deps.db);
  });
});

describe('security', () => {
  it('rotates the master key: data written before the rotation still decrypts after it, with the old key gone', async () => {
    const oldMaster = randomBytes(32);
    const newMaster = randomBytes(32);
    const before = new Vault(new Keyring(oldMaster));
    const merchant = await createMerchantAccount(deps);
    const where = binding();
    const sealed = await before.encrypt(deps.db, merchant, '378282246310005', where);
    const fingerprint = await before.fingerprint(deps.db, merchant, '378282246310005');

    // During the rotation: the new key is current, the old ones still open what they wrapped
    // (the file's key wrapped the data keys the other tests created).
    const fileKey = Buffer.from(
      fs.readFileSync(path.join(env.config.dataDir, MASTER_KEY_FILE), 'utf8').trim(),
      'base64',
    );
    const during = new Keyring(newMaster, [oldMaster, fileKey]);
    expect(await new Vault(during).decrypt(deps.db, merchant, sealed, where)).toBe('378282246310005');
    expect(await rewrapDataKeys(deps.db, during)).toBeGreaterThanOrEqual(2);
    const rows = await deps.db
      .selectFrom('vault_data_keys')
      .select(['master_key_id', 'rewrapped_at'])
      .where('merchant_account_id', '=', merchant)
      .execute();
    expect(rows.every((row) => row.master_key_id === during.currentId && row.rewrapped_at !== null)).toBe(true);

    // After it: only the new key is configured.
    const after = new Vault(new Keyring(newMaster));
    expect(await after.decrypt(deps.db, merchant, sealed, where)).toBe('378282246310005');
    expect(await after.fingerprint(deps.db, merchant, '378282246310005')).toBe(fingerprint);
    await expect(new Vault(new Keyring(oldMaster)).decrypt(deps.db, merchant, sealed, where)).rejects.toThrow(
      /master key .* is not configured/,
    );
  });
});
