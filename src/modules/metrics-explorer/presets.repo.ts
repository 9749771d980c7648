import { sql } from 'kysely';
import type { MetricsSource, NewPreset, PresetRow } from '../../db/schema-insights.ts';
import type { Executor } from '../../db/transaction.ts';

/** Serializes the writers of one account's presets of a source, so the limit of ten holds under races. */
export async function lockPresets(db: Executor, merchantAccountId: string, source: MetricsSource): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`metrics-explorer-presets:${merchantAccountId}:${source}`}))`.execute(
    db,
  );
}

export async function listPresets(
  db: Executor,
  merchantAccountId: string,
  source: MetricsSource,
): Promise<PresetRow[]> {
  return db
    .selectFrom('metrics_explorer_presets')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('source', '=', source)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countPresets(db: Executor, merchantAccountId: string, source: MetricsSource): Promise<number> {
  const row = await db
    .selectFrom('metrics_explorer_presets')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_account_id', '=', merchantAccountId)
    .where('source', '=', source)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertPreset(db: Executor, row: NewPreset): Promise<PresetRow> {
  return db.insertInto('metrics_explorer_presets').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPreset(
  db: Executor,
  merchantAccountId: string,
  source: MetricsSource,
  id: string,
): Promise<PresetRow | undefined> {
  return db
    .selectFrom('metrics_explorer_presets')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('source', '=', source)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function renamePreset(
  db: Executor,
  merchantAccountId: string,
  source: MetricsSource,
  id: string,
  displayName: string,
  now: Date,
): Promise<PresetRow | undefined> {
  return db
    .updateTable('metrics_explorer_presets')
    .set({ display_name: displayName, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('source', '=', source)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function deletePreset(
  db: Executor,
  merchantAccountId: string,
  source: MetricsSource,
  id: string,
): Promise<PresetRow | undefined> {
  return db
    .deleteFrom('metrics_explorer_presets')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('source', '=', source)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
