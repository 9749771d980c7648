import type { RequestContext } from '../../context.ts';
import type { FlowName } from '../../db/schema-flow-rules.ts';
import { detectSchemes } from '../../lib/card-schemes.ts';
import { listRoutablePaymentServices } from '../payment-services/payment-services.service.ts';
import { candidateOf } from '../transactions/routing/flow-route.ts';
import { route } from '../transactions/routing/routing.ts';
import type { PaymentServiceRow } from '../../db/schema.ts';
import { isProduction } from '../../errors/sandbox-only.ts';
import { authenticatorOf } from '../transactions/routing/step-up-authenticator.ts';
import { dryRunChoice } from './dry-run-choice.ts';
import { serviceFigures } from './dry-run-figures.ts';
import { stepUpPreview } from './dry-run-step-up.ts';
import type { DryRunChoice } from './dry-run.schemas.ts';
import {
  explainRules,
  FLOW_ACTIONS,
  routeOutcomeOf,
  serviceOrder,
  SUCCESS_RATE_DEFAULTS,
  type FlowRule,
} from './flow-decisions.ts';
import { rulesInOrder } from './flow-rules.repo.ts';
import type { DryRunFlowBody, DryRunResult } from './flows.schemas.ts';
import type { FlowFacts } from './rule-conditions.ts';
import type { SuccessRateExplanation } from '../routing-stats/chooser.ts';
import { dimensionKeys } from '../routing-stats/dimensions.ts';
import type { LeastCostExplanation } from '../routing-stats/least-cost.ts';
import { strategyRanker } from '../routing-stats/strategy-ranker.ts';
import { HEALTH_WINDOW_MINUTES } from '../routing-stats/sliding-window.ts';
import { velocityCheck } from '../velocity/velocity.service.ts';
import { velocityNeedsOf, velocityTrace, type VelocityLookup } from './velocity-condition.ts';

type Decision = DryRunResult['decisions'][number];
type Step = NonNullable<Decision['payment_services']>[number];

function factsOf(body: DryRunFlowBody): FlowFacts {
  const pm = body.payment_method ?? null;
  const bin = pm?.bin ?? null;
  return {
    amount: body.amount,
    currency: body.currency,
    country: body.country ?? null,
    method: pm?.method ?? null,
    scheme: pm?.scheme ?? (bin ? detectSchemes(bin).scheme : null),
    bin,
    issuerCountry: bin ? detectSchemes(bin).country : null,
    paymentSource: body.payment_source ?? 'ecommerce',
    merchantInitiated: body.merchant_initiated ?? false,
    isSubsequentPayment: body.is_subsequent_payment ?? false,
    metadata: body.metadata ?? null,
    buyerExternalIdentifier: body.buyer_external_identifier ?? null,
    antiFraudDecision: body.anti_fraud_decision ?? null,
    threeDSecureStatus: body.three_d_secure_status ?? null,
  };
}

interface Routed {
  steps: Step[];
  successRate: SuccessRateExplanation | null;
  leastCost: LeastCostExplanation | null;
  chosen: DryRunChoice | null;
  /** The eligible services in the order they would be tried (a failover plan's order). */
  eligible: string[];
  rows: readonly PaymentServiceRow[];
}

/**
 * The services in the order a transaction would try them, then those it would not, each with why;
 * with strategy success_rate, each candidate's estimate and the choice's explanation (seeded by
 * `splitKey`, as a transaction's choice is by its id).
 */
async function routeSteps(
  ctx: RequestContext,
  facts: FlowFacts,
  winner: FlowRule | null,
  splitKey: string,
  cardType: string | null,
): Promise<Routed> {
  const rows = await listRoutablePaymentServices(ctx.deps.db, ctx.deps, ctx.merchantAccountId);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const order = winner ? serviceOrder(routeOutcomeOf(winner), splitKey) : rows.map((r) => r.id);
  const keys = dimensionKeys({
    scheme: facts.scheme,
    currency: facts.currency ?? '',
    country: facts.country,
    cardType,
    issuerCountry: facts.issuerCountry,
  });
  const outcome = winner ? routeOutcomeOf(winner) : null;
  const costFacts = {
    amount: facts.amount ?? 0,
    currency: facts.currency ?? '',
    scheme: facts.scheme,
    cardType,
    country: facts.country,
  };
  const rank = winner
    ? await strategyRanker({
        stats: ctx.deps.routingStats,
        db: ctx.deps.db,
        merchantAccountId: ctx.merchantAccountId,
        outcome: routeOutcomeOf(winner),
        keys,
        seed: splitKey,
        facts: costFacts,
        rows,
      })
    : null;
  const candidates = order.flatMap((id, i) => (byId.has(id) ? [candidateOf(byId.get(id)!, i)] : []));
  const request = {
    method: facts.method === 'network-token' ? 'card' : (facts.method ?? 'card'),
    currency: facts.currency ?? '',
    country: facts.country,
    forcedServiceId: null,
    knownDefinitions: new Set(ctx.deps.connectors.definitions().map((d) => d.id)),
    // A half-open service is shown skipped: only a bounded share of transactions probe it.
    breakers:
      winner && routeOutcomeOf(winner).breaker === false
        ? null
        : ctx.deps.breakers.view(ctx.merchantAccountId, { probe: false }),
  };
  const trace = route(candidates, request);
  const ranked = rank && trace.eligible.length > 0 ? rank(trace.eligible) : null;
  if (ranked) trace.eligible = ranked.order;
  const successRate = ranked?.strategy === 'success_rate' ? ranked.explanation : null;
  const leastCost = ranked?.strategy === 'least_cost' ? ranked.explanation : null;
  // Each eligible service's line of the strategy's explanation, under the strategy's name.
  const estimateOf = (id: string): Partial<Step> =>
    successRate
      ? { success_rate: successRate.candidates.find((c) => c.payment_service_id === id) ?? null }
      : leastCost
        ? { least_cost: leastCost.candidates.find((c) => c.payment_service_id === id) ?? null }
        : {};
  const name = (id: string) => byId.get(id)?.display_name ?? null;
  // Every strategy: each service's circuit, rate and cost now, read as routing reads them.
  const evidence = {
    keys,
    countsOf: await ctx.deps.routingStats.view(
      ctx.merchantAccountId,
      outcome?.window_minutes ?? SUCCESS_RATE_DEFAULTS.windowMinutes,
      ctx.deps.db,
    ),
    recentOf: await ctx.deps.routingStats.view(ctx.merchantAccountId, HEALTH_WINDOW_MINUTES, ctx.deps.db),
    minSamples: outcome?.min_samples ?? SUCCESS_RATE_DEFAULTS.minSamples,
  };
  const current = (id: string): Partial<Step> => {
    const row = byId.get(id);
    if (!row) return {};
    const circuit = ctx.deps.breakers.stateOf(ctx.merchantAccountId, id);
    return { current: serviceFigures(id, row.fee_schedule, circuit, evidence, costFacts) };
  };
  // Without a rule only the first eligible service is tried: failover needs a rule.
  const tried = winner ? trace.eligible.slice(0, routeOutcomeOf(winner).max_attempts) : trace.eligible.slice(0, 1);
  const steps: Step[] = tried.map((id) => ({
    payment_service_id: id,
    display_name: name(id),
    eligible: true,
    skipped_because: null,
    ...estimateOf(id),
    ...current(id),
  }));
  for (const id of trace.eligible.filter((e) => !tried.includes(e)))
    steps.push({
      payment_service_id: id,
      display_name: name(id),
      eligible: true,
      skipped_because: winner ? 'beyond_max_attempts' : 'no_failover_without_a_rule',
      ...estimateOf(id),
      ...current(id),
    });
  for (const s of trace.skipped)
    steps.push({
      payment_service_id: s.payment_service_id,
      display_name: name(s.payment_service_id),
      eligible: false,
      skipped_because: s.reason,
      ...current(s.payment_service_id),
    });
  for (const id of order)
    if (!byId.has(id))
      steps.push({
        payment_service_id: id,
        display_name: null,
        eligible: false,
        skipped_because: 'inactive_or_deleted',
      });
  const chosen = dryRunChoice({
    ruled: winner !== null,
    weights: outcome?.weights ?? null,
    splitKey,
    order,
    eligible: trace.eligible,
    skipped: trace.skipped,
    circuitOpenKept: trace.circuit_open_kept,
    ranked: ranked ? { strategy: ranked.strategy, reason: ranked.explanation.reason } : null,
  });
  return { steps, successRate, leastCost, chosen, eligible: trace.eligible, rows };
}

/**
 * The counts the velocity conditions of these rules would see for the hypothetical transaction
 * (it counts as one attempt, and is not recorded). It has no card number: card keys are unknown.
 */
async function dryRunVelocity(
  ctx: RequestContext,
  body: DryRunFlowBody,
  conditions: Parameters<typeof velocityNeedsOf>[0],
): Promise<VelocityLookup | null> {
  const needs = velocityNeedsOf(conditions);
  if (!needs) return null;
  const values = {
    card_fingerprint: null,
    buyer: body.buyer_id ?? null,
    email_address: body.email_address ?? null,
    ip_address: body.ip_address ?? null,
  };
  const current = { currency: body.currency, amount: body.amount, card: null };
  return (await velocityCheck(ctx.deps, ctx.deps.db, ctx.merchantAccountId, needs, values, current)).lookup;
}

/** `POST /flows/{flow}/dry-run`: every action of the flow for a hypothetical transaction, from the stored rules (disabled ones shown). */
export async function dryRunFlow(ctx: RequestContext, flow: FlowName, body: DryRunFlowBody): Promise<DryRunResult> {
  const lists = [];
  for (const action of FLOW_ACTIONS[flow])
    lists.push({ action, rows: await rulesInOrder(ctx.deps.db, ctx.merchantAccountId, flow, action) });
  const facts = {
    ...factsOf(body),
    velocity: await dryRunVelocity(
      ctx,
      body,
      lists.flatMap((l) => l.rows.map((r) => r.conditions)),
    ),
  };
  const decisions: Decision[] = [];
  let route: { decision: Decision; routed: Routed; winner: FlowRule | null } | null = null;
  for (const { action, rows } of lists) {
    const rules: FlowRule[] = rows.map((r) => ({
      id: r.id,
      flow: r.flow,
      action: r.action,
      position: r.position,
      enabled: r.enabled,
      conditions: r.conditions,
      outcome: r.outcome,
    }));
    const { winner, rules: explained } = explainRules(rules, facts);
    const decision: Decision = {
      action,
      matched_rule_id: winner?.id ?? null,
      outcome: (winner?.outcome as Decision['outcome']) ?? null,
      rules: explained,
    };
    const velocity = winner ? velocityTrace(winner.conditions, facts.velocity) : [];
    if (velocity.length > 0) decision.velocity = velocity;
    if (action === 'route-transaction') {
      const cardType = body.payment_method?.card_type ?? null;
      const routed = await routeSteps(ctx, facts, winner, body.external_identifier ?? 'dry-run', cardType);
      decision.payment_services = routed.steps;
      if (routed.successRate) decision.success_rate = routed.successRate;
      if (routed.leastCost) decision.least_cost = routed.leastCost;
      if (routed.chosen) decision.chosen = routed.chosen;
      route = { decision, routed, winner };
    }
    decisions.push(decision);
  }
  // After skip-3ds is known: whether the sandbox 3DS server would run before the authorization.
  if (route) {
    const stepUp = previewStepUp(ctx, body, route.routed, route.winner, decisions);
    if (stepUp) route.decision.step_up = stepUp;
  }
  return { flow, decisions };
}

/** What a decline asking for authentication at the first service would lead to (dry-run-step-up.ts). */
function previewStepUp(
  ctx: RequestContext,
  body: DryRunFlowBody,
  routed: Routed,
  winner: FlowRule | null,
  decisions: readonly Decision[],
) {
  const production = isProduction(ctx.deps.config);
  const card = (body.payment_method?.method ?? 'card') === 'card';
  const merchantInitiated = body.merchant_initiated ?? false;
  const first = routed.rows.find((r) => r.id === routed.eligible[0]);
  const skip3ds = decisions.some((d) => d.action === 'skip-3ds' && d.matched_rule_id !== null);
  // As prepare-transaction.ts: the sandbox 3DS server authenticates up front at a service with 3DS enabled.
  const sandbox3ds = !!first?.three_d_secure_enabled && !production && card && !merchantInitiated && !skip3ds;
  return stepUpPreview({
    ruleId: winner?.id ?? null,
    outcome: winner ? routeOutcomeOf(winner) : null,
    eligible: routed.eligible,
    merchantInitiated,
    paymentSource: body.payment_source ?? 'ecommerce',
    card,
    redirectUrl: !!body.payment_method?.redirect_url,
    threeDsDone: (body.three_d_secure_status ?? null) !== null || sandbox3ds,
    authenticatorOf: (id) => authenticatorOf(ctx.deps.connectors, routed.rows, id, production),
    now: Date.now(),
  });
}
