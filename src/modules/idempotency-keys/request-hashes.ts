import type { Executor } from '../../db/transaction.ts';
import type { Vault } from '../../vault/vault.ts';
import * as repo from './idempotency-keys.repo.ts';

/** A request hash: the vault's keyed MAC of the request, card fields MACed on their own (http/idempotency-fingerprint.ts). */
export const KEYED = 'k1:';
/** A key stored before migration 0038, rewritten: the keyed MAC of its old SHA-256. */
export const LEGACY_KEYED = 'k0:';

/** A hash stored before migration 0038 and not yet rewritten: SHA-256 in hex. */
export const isUnkeyed = (stored: string): boolean => /^[0-9a-f]{64}$/.test(stored);

/** The rewritten form of an old SHA-256 request hash: what the rekey job stores in its place. */
export async function keyedLegacyHash(
  vault: Vault,
  db: Executor,
  merchantAccountId: string,
  sha256Hex: string,
): Promise<string> {
  return LEGACY_KEYED + (await vault.requestMac(db, merchantAccountId, () => `sha256 before 0038\n${sha256Hex}`));
}

/**
 * Rewrites up to `batch` request hashes stored before migration 0038 (unkeyed SHA-256) as keyed
 * MACs of themselves, and returns how many it rewrote. Each row is written only if its hash is still
 * the one read: a claim renewed meanwhile keeps its new (keyed) hash. Responses stay sealed as
 * they were; a replay of such a key opens them with the old SHA-256 it recomputes from the retry.
 */
export async function rekeyRequestHashes(deps: { db: Executor; vault: Vault }, batch = 500): Promise<number> {
  const rows = await repo.findUnkeyedRequestHashes(deps.db, batch);
  const rekeyed: repo.RekeyedHash[] = [];
  for (const row of rows) {
    rekeyed.push({
      ...row,
      keyed: await keyedLegacyHash(deps.vault, deps.db, row.merchant_account_id, row.request_hash),
    });
  }
  return rekeyed.length === 0 ? 0 : repo.setRekeyedHashes(deps.db, rekeyed);
}
