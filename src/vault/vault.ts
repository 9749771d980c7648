import { createHmac, randomBytes } from 'node:crypto';
import type { Executor } from '../db/transaction.ts';
import { uuidv7 } from '../lib/ids.ts';
import { open, seal } from './crypto.ts';
import * as keys from './data-keys.repo.ts';
import * as codes from './security-codes.repo.ts';
import type { Keyring } from './keyring.ts';

export interface Sealed {
  ciphertext: string;
  /** The data key it was sealed with (stored next to the ciphertext). */
  keyId: string;
}

/** Where a ciphertext lives: its associated data, so a ciphertext copied elsewhere does not open. */
export interface Binding {
  table: string;
  column: string;
  rowId: string;
}

const aadOf = (merchantAccountId: string, binding: Binding) =>
  `${binding.table}.${binding.column}:${merchantAccountId}:${binding.rowId}`;
/** Associated data of a wrapped data key: the wrapping is bound to its key row (rotation uses it too). */
export const wrapAad = (merchantAccountId: string, id: string, purpose: string) =>
  `vault_data_keys:${merchantAccountId}:${id}:${purpose}`;

/**
 * The only plaintext boundary for card data. Envelope encryption: each merchant account has a data
 * key (AES-256-GCM) wrapped by the master key; each ciphertext records its data key id and is bound
 * to its row by associated data. Fingerprints are HMAC-SHA256 under a separate per-merchant key, so
 * the same card stored twice has the same fingerprint, and a fingerprint reveals nothing; request
 * fingerprints (idempotency keys) are HMAC-SHA256 under a third, the `request` key. Unwrapped data keys are cached in memory (bounded): they are as sensitive as the master key.
 * So is which key is active for a merchant account and purpose: a data key stays active once
 * created (the master key's rotation re-wraps it, keeping its id and material; merchant accounts are
 * never deleted), but only an answer read outside a transaction is kept, since a transaction's own
 * new key is undone with it if it rolls back.
 */
export class Vault {
  private readonly cache = new Map<string, Buffer>();
  private readonly active = new Map<string, string>();

  constructor(
    private readonly keyring: Keyring,
    private readonly maxCachedKeys = 10_000,
  ) {}

  private cacheKey(merchantAccountId: string, id: string): string {
    return `${merchantAccountId}:${id}`;
  }

  private remember(merchantAccountId: string, id: string, key: Buffer): Buffer {
    if (this.cache.size >= this.maxCachedKeys) this.cache.clear();
    this.cache.set(this.cacheKey(merchantAccountId, id), key);
    return key;
  }

  /** The active data key of a purpose, created on first use. Runs in the caller's transaction. */
  private async activeKey(
    db: Executor,
    merchantAccountId: string,
    purpose: keys.Purpose,
  ): Promise<{ id: string; key: Buffer }> {
    const known = this.active.get(`${merchantAccountId}:${purpose}`);
    if (known) return { id: known, key: await this.keyById(db, merchantAccountId, known) };
    let row = await keys.findActiveKey(db, merchantAccountId, purpose);
    if (!row) {
      const id = uuidv7();
      const { wrapped, masterKeyId } = this.keyring.wrap(randomBytes(32), wrapAad(merchantAccountId, id, purpose));
      await keys.insertActiveKey(db, {
        merchant_account_id: merchantAccountId,
        id,
        purpose,
        wrapped_key: wrapped,
        master_key_id: masterKeyId,
      });
      row = await keys.findActiveKey(db, merchantAccountId, purpose);
      if (!row) throw new Error('the vault could not create a data key');
    }
    if (!db.isTransaction) {
      if (this.active.size >= this.maxCachedKeys) this.active.clear();
      this.active.set(`${merchantAccountId}:${purpose}`, row.id);
    }
    return { id: row.id, key: await this.keyById(db, merchantAccountId, row.id) };
  }

  private async keyById(db: Executor, merchantAccountId: string, id: string): Promise<Buffer> {
    const cached = this.cache.get(this.cacheKey(merchantAccountId, id));
    if (cached) return cached;
    const row = await keys.findKey(db, merchantAccountId, id);
    if (!row) throw new Error(`data key ${id} not found for this merchant account`);
    return this.remember(
      merchantAccountId,
      id,
      this.keyring.unwrap(row.wrapped_key, row.master_key_id, wrapAad(merchantAccountId, id, row.purpose)),
    );
  }

  async encrypt(db: Executor, merchantAccountId: string, plaintext: string, binding: Binding): Promise<Sealed> {
    const { id, key } = await this.activeKey(db, merchantAccountId, 'encryption');
    return { ciphertext: seal(key, Buffer.from(plaintext, 'utf8'), aadOf(merchantAccountId, binding)), keyId: id };
  }

  async decrypt(db: Executor, merchantAccountId: string, sealed: Sealed, binding: Binding): Promise<string> {
    const key = await this.keyById(db, merchantAccountId, sealed.keyId);
    return open(key, sealed.ciphertext, aadOf(merchantAccountId, binding)).toString('utf8');
  }

  /** A stable, keyed digest of a value (a card number) for this merchant account. */
  async fingerprint(db: Executor, merchantAccountId: string, value: string): Promise<string> {
    const { key } = await this.activeKey(db, merchantAccountId, 'fingerprint');
    return createHmac('sha256', key).update(value).digest('base64url');
  }

  /**
   * A keyed MAC (HMAC-SHA256, base64url) of a request's representation, under the merchant
   * account's `request` key: what an idempotency key stores to recognise its request. A plain hash
   * of a body that holds a card can be brute-forced over the card's unknown digits; this cannot
   * without the key, which never leaves the vault. `build` gets a MAC of single values under the
   * same key (another label), to put in the representation in place of each card field, so that
   * no card value enters it in clear. The key is cached like the others: no round trip once warm.
   */
  async requestMac(
    db: Executor,
    merchantAccountId: string,
    build: (macOf: (value: string) => string) => string,
  ): Promise<string> {
    const { key } = await this.activeKey(db, merchantAccountId, 'request');
    const mac = (label: string, value: string) =>
      createHmac('sha256', key).update(label).update(value).digest('base64url');
    return mac(
      'request\n',
      build((value) => mac('field\n', value)),
    );
  }

  /**
   * Holds a security code (CVV) encrypted until `expiresAt` or its first use, whichever comes
   * first. It is never stored in clear and never outlives authorization.
   */
  async holdSecurityCode(
    db: Executor,
    merchantAccountId: string,
    owner: codes.Owner,
    code: string,
    expiresAt: Date,
  ): Promise<void> {
    const id = uuidv7();
    const sealed = await this.encrypt(db, merchantAccountId, code, {
      table: 'vault_security_codes',
      column: 'ciphertext',
      rowId: `${owner.type}:${owner.id}`,
    });
    await codes.upsertSecurityCode(db, {
      merchant_account_id: merchantAccountId,
      id,
      owner,
      ciphertext: sealed.ciphertext,
      key_id: sealed.keyId,
      expires_at: expiresAt,
    });
  }

  /** Releases a held security code for one use and destroys it; null when none is held or it expired. */
  async takeSecurityCode(db: Executor, merchantAccountId: string, owner: codes.Owner): Promise<string | null> {
    const row = await codes.takeSecurityCode(db, merchantAccountId, owner);
    if (!row || row.expires_at.getTime() <= Date.now()) return null;
    return this.decrypt(
      db,
      merchantAccountId,
      { ciphertext: row.ciphertext, keyId: row.key_id },
      { table: 'vault_security_codes', column: 'ciphertext', rowId: `${owner.type}:${owner.id}` },
    );
  }

  /** Destroys a held security code without opening it (card data replaced or purged). */
  async discardSecurityCode(db: Executor, merchantAccountId: string, owner: codes.Owner): Promise<void> {
    await codes.takeSecurityCode(db, merchantAccountId, owner);
  }

  /** Forgets unwrapped keys (after a rotation, in tests). */
  clearCache(): void {
    this.cache.clear();
    this.active.clear();
  }
}
