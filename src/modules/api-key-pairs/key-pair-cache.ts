import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { ApiKeyPairRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { scopesOfRoles } from '../roles/roles.catalogue.ts';
import { findKeyPairByThumbprint } from './api-key-pairs.repo.ts';

export interface CachedKeyPair {
  id: string;
  displayName: string;
  thumbprint: string;
  key: CryptoKey | Uint8Array;
  restrictedTo: string | null;
  active: boolean;
  /** The scopes of the pair's roles, its tokens' ceiling; null: no roles, a token has what it claims. */
  roleScopes: string[] | null;
}

interface Entry {
  value: CachedKeyPair | null;
  loadedAt: number;
  /** The public JWK the key was imported from (its JSON text): a reload with the same one keeps the key. */
  jwk: string | null;
}

interface Load {
  promise: Promise<CachedKeyPair | null>;
  /** Which load this is: only the key's current load may keep its result. */
  generation: number;
}

/**
 * Public keys by thumbprint (`kid`), reloaded from the database after `ttlMs`. The TTL bounds how
 * long a revoked key pair keeps working on a process that cached it (documented: 5 s).
 * Unknown thumbprints are cached too, so a flood of bad `kid`s does not reach the database.
 *
 * Concurrent requests that find the entry missing or expired share one load: every 5 s the
 * requests in flight at that moment (32 at a time in the benchmark) would otherwise each read the
 * row and import the key. A reload whose public JWK did not change keeps the imported key (the
 * thumbprint names the key; the row's other columns, such as `active`, are what a reload is for).
 * `invalidate` during a load forgets that load too: its callers get what it read, nothing keeps it.
 */
export class KeyPairCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loads = new Map<string, Load>();
  private generation = 0;

  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
    /** The read by thumbprint (tests count and hold it). */
    private readonly find: (
      db: Executor,
      thumbprint: string,
    ) => Promise<ApiKeyPairRow | undefined> = findKeyPairByThumbprint,
  ) {}

  get(thumbprint: string): Promise<CachedKeyPair | null> {
    const entry = this.entries.get(thumbprint);
    if (entry && this.now() - entry.loadedAt < this.ttlMs) return Promise.resolve(entry.value);
    const running = this.loads.get(thumbprint);
    if (running) return running.promise;
    const generation = ++this.generation;
    const load: Load = { promise: this.load(thumbprint, entry, generation), generation };
    this.loads.set(thumbprint, load);
    const settle = () => {
      if (this.loads.get(thumbprint)?.generation === load.generation) this.loads.delete(thumbprint);
    };
    load.promise.then(settle, settle);
    return load.promise;
  }

  private async load(
    thumbprint: string,
    previous: Entry | undefined,
    generation: number,
  ): Promise<CachedKeyPair | null> {
    const row = await this.find(this.db, thumbprint);
    const jwk = row ? JSON.stringify(row.public_jwk) : null;
    const value = row ? await this.toCached(row, jwk!, previous) : null;
    // Still the key's current load (no invalidate meanwhile): keep what it read.
    if (this.loads.get(thumbprint)?.generation === generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(thumbprint, { value, loadedAt: this.now(), jwk });
    }
    return value;
  }

  private async toCached(row: ApiKeyPairRow, jwk: string, previous: Entry | undefined): Promise<CachedKeyPair> {
    const key =
      previous?.value && previous.jwk === jwk ? previous.value.key : await importJWK(row.public_jwk as JWK, 'ES512');
    return {
      id: row.id,
      displayName: row.display_name,
      thumbprint: row.thumbprint,
      key,
      restrictedTo: row.merchant_account_id,
      active: row.active && row.deleted_at === null,
      roleScopes: row.role_slugs === null ? null : scopesOfRoles(row.role_slugs),
    };
  }

  /** Forgets a key pair at once in this process (after a local revoke), and any load of it under way. */
  invalidate(thumbprint: string): void {
    this.entries.delete(thumbprint);
    this.loads.delete(thumbprint);
  }
}
