import { sql } from 'kysely';
import type { Deps } from '../../src/context.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { insertMerchantAccount } from '../../src/modules/merchant-accounts/merchant-accounts.repo.ts';

/** A fresh merchant account for one test, so tests never share state. */
export async function createMerchantAccount(
  deps: Deps,
  overrides: { id?: string; display_name?: string } = {},
): Promise<string> {
  const id = overrides.id ?? `ma-${uuidv7().slice(-12)}`;
  await insertMerchantAccount(deps.db, { id, display_name: overrides.display_name ?? `Merchant ${id}` });
  return id;
}

/**
 * Removes merchant accounts that have no other rows, for a test about what a vanished row does to a
 * reader (a listing's page, a replayed response). The application never deletes one: migration
 * 0078's trigger refuses it (SV003, decision 0155), so this runs with triggers off for its own
 * transaction (`session_replication_role = replica`, which the tests' superuser may set).
 */
export async function removeMerchantAccounts(deps: Deps, ids: readonly string[]): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    await sql`SET LOCAL session_replication_role = replica`.execute(tx);
    await tx.deleteFrom('merchant_accounts').where('id', 'in', ids).execute();
  });
}
