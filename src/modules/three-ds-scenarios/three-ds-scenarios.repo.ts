import type { Insertable, Updateable } from 'kysely';
import type { ThreeDsScenarioRow, ThreeDsScenariosTable } from '../../db/schema.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export type NewThreeDsScenario = Insertable<ThreeDsScenariosTable>;
export type ThreeDsScenarioPatch = Omit<
  Updateable<ThreeDsScenariosTable>,
  'merchant_account_id' | 'id' | 'created_at' | 'updated_at'
>;

export async function insertThreeDsScenario(db: Executor, row: NewThreeDsScenario): Promise<ThreeDsScenarioRow> {
  return db.insertInto('three_ds_scenarios').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findThreeDsScenario(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ThreeDsScenarioRow | undefined> {
  let query = db
    .selectFrom('three_ds_scenarios')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function listThreeDsScenarios(
  db: Executor,
  merchantAccountId: string,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<ThreeDsScenarioRow>> {
  const base = db.selectFrom('three_ds_scenarios').selectAll().where('merchant_account_id', '=', merchantAccountId);
  return keysetPage(db, base, { columns: ['created_at', 'id'], limit, position });
}

export async function updateThreeDsScenario(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: ThreeDsScenarioPatch,
): Promise<ThreeDsScenarioRow> {
  return db
    .updateTable('three_ds_scenarios')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteThreeDsScenario(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('three_ds_scenarios')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

/**
 * The scenarios that could match a transaction: those whose amount condition equals its amount,
 * those whose card condition equals its card, and those conditioned on neither. Each branch is
 * answered by its own partial index (see the migration), so a busy sandbox account with many
 * amount-keyed scenarios is not read whole. The caller checks the remaining conditions.
 */
export async function findScenarioCandidates(
  db: Executor,
  merchantAccountId: string,
  amount: number,
  cardFingerprint: string | null,
): Promise<ThreeDsScenarioRow[]> {
  const scoped = () =>
    db.selectFrom('three_ds_scenarios').selectAll().where('merchant_account_id', '=', merchantAccountId);
  let query = scoped()
    .where('amount', '=', amount)
    .unionAll(scoped().where('amount', 'is', null).where('card_fingerprint', 'is', null));
  if (cardFingerprint !== null) query = query.unionAll(scoped().where('card_fingerprint', '=', cardFingerprint));
  const rows = await query.execute();
  // A scenario conditioned on both the amount and the card comes back from two branches.
  return [...new Map(rows.map((row) => [row.id, row])).values()];
}
