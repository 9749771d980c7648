import { sql } from 'kysely';
import type { FlowActionName, FlowName, FlowRulePatch, FlowRuleRow, NewFlowRule } from '../../db/schema-flow-rules.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

/**
 * Serializes the writers of one flow action's list (positions are dense 1..n): held to the end of
 * the caller's transaction. An advisory lock rather than a row lock: the list may be empty.
 */
export async function lockRuleList(
  db: Executor,
  merchantAccountId: string,
  flow: FlowName,
  action: FlowActionName,
): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`flow-rules:${merchantAccountId}:${flow}:${action}`}))`.execute(db);
}

export async function insertFlowRule(db: Executor, row: NewFlowRule): Promise<FlowRuleRow> {
  return db.insertInto('flow_rules').values(row).returningAll().executeTakeFirstOrThrow();
}

/** The rules of one flow action of the merchant account. */
const listOf = (db: Executor, merchantAccountId: string, flow: FlowName, action: FlowActionName) =>
  db
    .selectFrom('flow_rules')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('flow', '=', flow)
    .where('action', '=', action);

export async function findFlowRule(
  db: Executor,
  merchantAccountId: string,
  flow: FlowName,
  action: FlowActionName,
  id: string,
): Promise<FlowRuleRow | undefined> {
  return listOf(db, merchantAccountId, flow, action).where('id', '=', id).executeTakeFirst();
}

/** A flow action's rules in order (the caller holds `lockRuleList`). */
export async function rulesInOrder(
  db: Executor,
  merchantAccountId: string,
  flow: FlowName,
  action: FlowActionName,
): Promise<FlowRuleRow[]> {
  return listOf(db, merchantAccountId, flow, action).orderBy('position').orderBy('id').execute();
}

export async function ruleIdsInOrder(
  db: Executor,
  merchantAccountId: string,
  flow: FlowName,
  action: FlowActionName,
): Promise<string[]> {
  return (await rulesInOrder(db, merchantAccountId, flow, action)).map((r) => r.id);
}

export async function listFlowRules(
  db: Executor,
  merchantAccountId: string,
  flow: FlowName,
  action: FlowActionName,
  enabled: boolean | undefined,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<FlowRuleRow>> {
  let base = listOf(db, merchantAccountId, flow, action);
  if (enabled !== undefined) base = base.where('enabled', '=', enabled);
  return keysetPage(db, base, { columns: ['position', 'id'], limit, position, ascending: true });
}

/** Every rule of the merchant account, for the cache (one statement per account and TTL). */
export async function allFlowRules(db: Executor, merchantAccountId: string): Promise<FlowRuleRow[]> {
  return db
    .selectFrom('flow_rules')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .orderBy('flow')
    .orderBy('action')
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export async function updateFlowRule(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: FlowRulePatch,
): Promise<FlowRuleRow> {
  return db
    .updateTable('flow_rules')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Gives the rules of a flow action the positions 1..n in the order of `ids` (every rule of the
 * list, once). One statement; rows whose position does not change are not written.
 */
export async function setPositions(db: Executor, merchantAccountId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    UPDATE flow_rules AS r SET position = o.position, updated_at = now()
    FROM unnest(${sql.val(ids)}::uuid[]) WITH ORDINALITY AS o(id, position)
    WHERE r.merchant_account_id = ${merchantAccountId} AND r.id = o.id AND r.position <> o.position`.execute(db);
}

export async function deleteFlowRule(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db.deleteFrom('flow_rules').where('merchant_account_id', '=', merchantAccountId).where('id', '=', id).execute();
}
