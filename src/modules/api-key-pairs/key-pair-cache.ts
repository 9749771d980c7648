import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { Executor } from '../../db/transaction.ts';
import { findKeyPairByThumbprint } from './api-key-pairs.repo.ts';

export interface CachedKeyPair {
  id: string;
  displayName: string;
  thumbprint: string;
  key: CryptoKey | Uint8Array;
  restrictedTo: string | null;
  active: boolean;
}

interface Entry {
  value: CachedKeyPair | null;
  loadedAt: number;
}

/**
 * Public keys by thumbprint (`kid`), reloaded from the database after `ttlMs`. The TTL bounds how
 * long a revoked key pair keeps working on a process that cached it (documented: 5 s).
 * Unknown thumbprints are cached too, so a flood of bad `kid`s does not reach the database.
 */
export class KeyPairCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  async get(thumbprint: string): Promise<CachedKeyPair | null> {
    const entry = this.entries.get(thumbprint);
    if (entry && this.now() - entry.loadedAt < this.ttlMs) return entry.value;
    const row = await findKeyPairByThumbprint(this.db, thumbprint);
    const value: CachedKeyPair | null = row
      ? {
          id: row.id,
          displayName: row.display_name,
          thumbprint: row.thumbprint,
          key: await importJWK(row.public_jwk as JWK, 'ES512'),
          restrictedTo: row.merchant_account_id,
          active: row.active && row.deleted_at === null,
        }
      : null;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(thumbprint, { value, loadedAt: this.now() });
    return value;
  }

  /** Forgets a key pair at once in this process (after a local revoke). */
  invalidate(thumbprint: string): void {
    this.entries.delete(thumbprint);
  }
}
