import { withRequestTransaction, type Deps, type RequestContext } from '../../context.ts';
import type { ThreeDsScenarioRow } from '../../db/schema.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { fieldRefusal, invalidField, notFound } from '../../errors/app-error.ts';
import { refuseInProduction, sandboxOnly } from '../../errors/sandbox-only.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { cardNumberProblem, validateCardNumber } from '../../lib/card-schemes.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { conditionsMatch, hasCondition, maskCardNumber } from './scenario-conditions.ts';
import * as repo from './three-ds-scenarios.repo.ts';
import {
  SANDBOX_THREE_DS_VERSION,
  THREE_DS_SCENARIO_TYPE,
  toThreeDsScenarioOutcome,
  toThreeDsScenarioResource,
  type CreateThreeDsScenarioBody,
  type ListThreeDsScenariosQuery,
  type ThreeDsScenario,
  type ThreeDsScenarioConditionsBody,
  type ThreeDsScenarioOutcome,
  type ThreeDsScenarioOutcomeBody,
  type UpdateThreeDsScenarioBody,
} from './three-ds-scenarios.schemas.ts';

export type { ThreeDsScenarioOutcome } from './three-ds-scenarios.schemas.ts';

const SANDBOX_ONLY: readonly [string, string] = [
  '3DS scenarios',
  "they steer the sandbox's simulated 3DS server only; in production the provider authenticates cards, or you send three_d_secure_data from your own 3DS server",
];
export const SANDBOX_ONLY_MESSAGE = sandboxOnly(...SANDBOX_ONLY).message;

/** Simulated outcomes must never steer a real payment: every operation refuses in production. */
export function assertSandbox(deps: Deps): void {
  refuseInProduction(deps.config, ...SANDBOX_ONLY);
}

const audited = (row: ThreeDsScenarioRow) => ({
  type: THREE_DS_SCENARIO_TYPE,
  id: row.id,
  name: `3DS scenario ${row.id}`,
});
const bad = (pointer: string, message: string, type = 'value_error') => fieldRefusal('body', pointer, message, type);

/** The rule of the model: a challenge (`C`) must say how it ends. */
function checkOutcome(outcome: ThreeDsScenarioOutcomeBody, pointer: string): ThreeDsScenarioOutcomeBody {
  if (outcome.authentication.transaction_status === 'C' && !outcome.result) {
    throw bad(
      `${pointer}/result`,
      'outcome.result is required when outcome.authentication.transaction_status is C (a challenge)',
      'missing',
    );
  }
  return outcome;
}

/** The condition columns of a conditions body; the card number becomes a fingerprint and a mask. */
async function conditionColumns(
  tx: Tx,
  ctx: RequestContext,
  conditions: ThreeDsScenarioConditionsBody,
): Promise<repo.ThreeDsScenarioPatch> {
  if (!hasCondition(conditions)) {
    throw bad(
      '/conditions',
      'Set at least one condition: a scenario without conditions would apply to every transaction',
      'conditions_empty',
    );
  }
  const number = conditions.card_number ?? null;
  if (number !== null) {
    const check = validateCardNumber(number);
    // The message describes the problem, never the number.
    if (!check.ok)
      throw invalidField('body', '/conditions/card_number', cardNumberProblem(check), `card_number_${check.reason}`);
  }
  return {
    first_name: conditions.first_name ?? null,
    last_name: conditions.last_name ?? null,
    email_address: conditions.email_address ?? null,
    amount: conditions.amount ?? null,
    external_identifier: conditions.external_identifier ?? null,
    card_fingerprint: number === null ? null : await ctx.deps.vault.fingerprint(tx, ctx.merchantAccountId, number),
    card_number_masked: number === null ? null : maskCardNumber(number),
  };
}

/** As stored: every key present, the version the sandbox's when none is named. */
const outcomeJson = (outcome: ThreeDsScenarioOutcomeBody) =>
  JSON.stringify({ ...outcome, version: outcome.version ?? SANDBOX_THREE_DS_VERSION, result: outcome.result ?? null });

export async function createThreeDsScenario(
  ctx: RequestContext,
  body: CreateThreeDsScenarioBody,
): Promise<ThreeDsScenario> {
  checkOutcome(body.outcome, '/outcome');
  return withRequestTransaction(ctx, async (tx) => {
    const conditions = await conditionColumns(tx, ctx, body.conditions);
    const row = await repo.insertThreeDsScenario(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: uuidv7(),
      ...conditions,
      outcome: outcomeJson(body.outcome),
    });
    await recordAudit(tx, ctx, 'created', audited(row));
    return toThreeDsScenarioResource(row);
  });
}

export async function listThreeDsScenarios(
  ctx: RequestContext,
  query: ListThreeDsScenariosQuery,
): Promise<ListEnvelope<ThreeDsScenario>> {
  return listPage(
    ctx,
    'three-ds-scenarios',
    query,
    (position, limit) => repo.listThreeDsScenarios(ctx.deps.db, ctx.merchantAccountId, position, limit),
    toThreeDsScenarioResource,
    (row) => [row.created_at, row.id],
  );
}

/** `conditions` and `outcome` are required on a scenario: null cannot clear them (leave one out to keep it). */
function refuseNulls(body: UpdateThreeDsScenarioBody): void {
  for (const field of ['conditions', 'outcome'] as const) {
    if (body[field] === null)
      throw bad(`/${field}`, `${field} cannot be null: a 3DS scenario requires it; leave it out to keep its value`);
  }
}

/** Partial update: `conditions` and `outcome`, when sent, each replace the stored value whole. */
export async function updateThreeDsScenario(
  ctx: RequestContext,
  id: string,
  body: UpdateThreeDsScenarioBody,
): Promise<ThreeDsScenario> {
  refuseNulls(body);
  if (body.outcome) checkOutcome(body.outcome, '/outcome');
  return withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findThreeDsScenario(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('3DS scenario', id);
    const patch: repo.ThreeDsScenarioPatch = body.conditions ? await conditionColumns(tx, ctx, body.conditions) : {};
    if (body.outcome) patch.outcome = outcomeJson(body.outcome);
    const row = await repo.updateThreeDsScenario(tx, ctx.merchantAccountId, id, patch);
    await recordAudit(tx, ctx, 'updated', audited(row));
    return toThreeDsScenarioResource(row);
  });
}

export async function deleteThreeDsScenario(ctx: RequestContext, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findThreeDsScenario(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('3DS scenario', id);
    await repo.deleteThreeDsScenario(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', audited(current));
  });
}

/** What the transaction engine knows when it decides on 3DS. */
export interface ThreeDsFacts {
  amount: number;
  cardNumber: string | null;
  externalIdentifier: string | null;
  buyer: { firstName: string | null; lastName: string | null; emailAddress: string | null } | null;
}

const newestFirst = (a: ThreeDsScenarioRow, b: ThreeDsScenarioRow) =>
  b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The newest scenario whose every set condition equals the fact (e-mail case-insensitive), or null. Sandbox only: null in production. */
export async function matchThreeDsScenario(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  facts: ThreeDsFacts,
): Promise<ThreeDsScenarioOutcome | null> {
  if (deps.config.environment === 'production') return null;
  const cardFingerprint = facts.cardNumber
    ? await deps.vault.fingerprint(db, merchantAccountId, facts.cardNumber)
    : null;
  const candidates = await repo.findScenarioCandidates(db, merchantAccountId, facts.amount, cardFingerprint);
  const match = candidates.sort(newestFirst).find((row) => conditionsMatch(row, { ...facts, cardFingerprint }));
  return match ? toThreeDsScenarioOutcome(match.outcome) : null;
}
