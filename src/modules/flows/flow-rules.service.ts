import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { FlowActionName, FlowName, FlowRulePatch, FlowRuleRow } from '../../db/schema-flow-rules.ts';
import type { Tx } from '../../db/transaction.ts';
import { AppError, fieldRefusal, notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import * as repo from './flow-rules.repo.ts';
import {
  FLOW_RULE_TYPE,
  MAX_RULES_PER_ACTION,
  toFlowRuleResource,
  type CreateFlowRuleBody,
  type FlowRule,
  type ListFlowRulesQuery,
  type ReorderFlowRulesBody,
  type UpdateFlowRuleBody,
} from './flows.schemas.ts';
import { checkConditions, checkFlowAction, checkOutcome } from './rule-outcomes.ts';

/** Rules per merchant account, flow and action: CRUD, order, audit. The engine reads them from the cache. */

export interface FlowAction {
  flow: FlowName;
  action: FlowActionName;
}

const audited = (row: FlowRuleRow) => ({
  type: FLOW_RULE_TYPE,
  id: row.id,
  name: `${row.flow} ${row.action} rule ${row.position}${row.description ? `: ${row.description}` : ''}`,
});

/** A change is seen at once by this process, and within the cache TTL (5 s) by the others. */
async function changing<T>(ctx: RequestContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const result = await withRequestTransaction(ctx, fn);
  ctx.deps.flowRules.invalidate(ctx.merchantAccountId);
  return result;
}

/** `ids` with `id` moved to 1-based `position` (clamped to the list). */
function moved(ids: readonly string[], id: string, position: number): string[] {
  const rest = ids.filter((other) => other !== id);
  rest.splice(Math.min(position, rest.length + 1) - 1, 0, id);
  return rest;
}

export async function createFlowRule(
  ctx: RequestContext,
  { flow, action }: FlowAction,
  body: CreateFlowRuleBody,
): Promise<FlowRule> {
  checkFlowAction(flow, action);
  const conditions = checkConditions(flow, body.conditions);
  return changing(ctx, async (tx) => {
    const outcome = await checkOutcome(tx, ctx.merchantAccountId, action, body.outcome);
    await repo.lockRuleList(tx, ctx.merchantAccountId, flow, action);
    const ids = await repo.ruleIdsInOrder(tx, ctx.merchantAccountId, flow, action);
    if (ids.length >= MAX_RULES_PER_ACTION)
      throw fieldRefusal(
        'path',
        '/action',
        `The ${flow} ${action} list already holds ${MAX_RULES_PER_ACTION} rules, the most it may hold; delete or merge some first`,
        'too_many_rules',
      );
    const id = uuidv7();
    const order = moved(ids, id, body.position ?? ids.length + 1);
    const row = await repo.insertFlowRule(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id,
      flow,
      action,
      position: order.indexOf(id) + 1,
      description: body.description ?? null,
      enabled: body.enabled ?? true,
      conditions: JSON.stringify(conditions),
      outcome: JSON.stringify(outcome),
    });
    // The rules after it move down one place (the new row already has its place, so it is not written).
    await repo.setPositions(tx, ctx.merchantAccountId, order);
    await recordAudit(tx, ctx, 'created', audited(row));
    return toFlowRuleResource(row);
  });
}

export async function listFlowRules(
  ctx: RequestContext,
  { flow, action }: FlowAction,
  query: ListFlowRulesQuery,
): Promise<ListEnvelope<FlowRule>> {
  checkFlowAction(flow, action);
  return listPage(
    ctx,
    `flow-rules:${flow}:${action}:${query.enabled ?? ''}`,
    query,
    (position, limit) =>
      repo.listFlowRules(ctx.deps.db, ctx.merchantAccountId, flow, action, query.enabled, position, limit),
    toFlowRuleResource,
    (row) => [row.position, row.id],
    ctx.merchantAccountId,
    'integer',
  );
}

async function ruleOrNotFound(
  tx: Tx | RequestContext['deps']['db'],
  ctx: RequestContext,
  { flow, action }: FlowAction,
  id: string,
): Promise<FlowRuleRow> {
  const row = await repo.findFlowRule(tx, ctx.merchantAccountId, flow, action, id);
  if (!row) throw notFound('flow rule', id);
  return row;
}

export async function getFlowRule(ctx: RequestContext, list: FlowAction, id: string): Promise<FlowRule> {
  checkFlowAction(list.flow, list.action);
  return toFlowRuleResource(await ruleOrNotFound(ctx.deps.db, ctx, list, id));
}

/** PUT as a partial update: fields left out keep their value; conditions and outcome are replaced whole. */
export async function updateFlowRule(
  ctx: RequestContext,
  list: FlowAction,
  id: string,
  body: UpdateFlowRuleBody,
): Promise<FlowRule> {
  checkFlowAction(list.flow, list.action);
  const conditions = body.conditions ? checkConditions(list.flow, body.conditions) : null;
  return changing(ctx, async (tx) => {
    await repo.lockRuleList(tx, ctx.merchantAccountId, list.flow, list.action);
    const current = await ruleOrNotFound(tx, ctx, list, id);
    const patch: FlowRulePatch = {};
    if (body.description !== undefined) patch.description = body.description;
    if (body.enabled !== undefined) patch.enabled = body.enabled;
    if (conditions) patch.conditions = JSON.stringify(conditions);
    if (body.outcome)
      patch.outcome = JSON.stringify(await checkOutcome(tx, ctx.merchantAccountId, list.action, body.outcome));
    if (body.position !== undefined && body.position !== current.position) {
      const ids = await repo.ruleIdsInOrder(tx, ctx.merchantAccountId, list.flow, list.action);
      await repo.setPositions(tx, ctx.merchantAccountId, moved(ids, id, body.position));
    }
    const row = await repo.updateFlowRule(tx, ctx.merchantAccountId, id, patch);
    await recordAudit(tx, ctx, 'updated', audited(row));
    return toFlowRuleResource(row);
  });
}

export async function deleteFlowRule(ctx: RequestContext, list: FlowAction, id: string): Promise<void> {
  checkFlowAction(list.flow, list.action);
  await changing(ctx, async (tx) => {
    await repo.lockRuleList(tx, ctx.merchantAccountId, list.flow, list.action);
    const current = await ruleOrNotFound(tx, ctx, list, id);
    await repo.deleteFlowRule(tx, ctx.merchantAccountId, id);
    // The rules after it move up one place: positions stay 1..n.
    await repo.setPositions(
      tx,
      ctx.merchantAccountId,
      await repo.ruleIdsInOrder(tx, ctx.merchantAccountId, list.flow, list.action),
    );
    await recordAudit(tx, ctx, 'deleted', audited(current));
  });
}

/** The new order of the whole list: every rule of the flow action, each once. */
export async function reorderFlowRules(
  ctx: RequestContext,
  list: FlowAction,
  body: ReorderFlowRulesBody,
): Promise<{ items: FlowRule[] }> {
  checkFlowAction(list.flow, list.action);
  return changing(ctx, async (tx) => {
    await repo.lockRuleList(tx, ctx.merchantAccountId, list.flow, list.action);
    const ids = await repo.ruleIdsInOrder(tx, ctx.merchantAccountId, list.flow, list.action);
    const twice = body.rule_ids.find((id, i) => body.rule_ids.indexOf(id) !== i);
    if (twice) throw fieldRefusal('body', '/rule_ids', `rule_ids lists ${twice} twice`);
    const unknown = body.rule_ids.find((id) => !ids.includes(id));
    if (unknown)
      throw new AppError(
        'not_found',
        `The rule ${unknown} is not a ${list.flow} ${list.action} rule of this merchant account`,
        {
          details: [
            { location: 'body', pointer: '/rule_ids', message: 'No such rule in this list', type: 'not_found' },
          ],
        },
      );
    const missing = ids.filter((id) => !body.rule_ids.includes(id));
    if (missing.length > 0)
      throw fieldRefusal(
        'body',
        '/rule_ids',
        `rule_ids must list every rule of the list; missing: ${missing.join(', ')}`,
        'missing',
      );
    await repo.setPositions(tx, ctx.merchantAccountId, body.rule_ids);
    const rows = await repo.rulesInOrder(tx, ctx.merchantAccountId, list.flow, list.action);
    for (const row of rows) await recordAudit(tx, ctx, 'updated', audited(row));
    return { items: rows.map(toFlowRuleResource) };
  });
}
