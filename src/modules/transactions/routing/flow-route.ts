import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { TransactionActionJson } from '../../../db/schema-transactions.ts';
import { AppError, fieldRefusal } from '../../../errors/app-error.ts';
import { routeOutcomeOf, serviceOrder, type FlowRule } from '../../flows/flow-decisions.ts';
import type { FailoverPlan } from './failover.ts';
import {
  networkTokenRefusal,
  noRouteMessage,
  route,
  walletTokenRefusal,
  type RoutingCandidate,
  type RoutingRequest,
  type RoutingTrace,
} from './routing.ts';

/** The service a transaction goes to first, the decision as its action, and the failover plan of a matched rule. */
export interface RouteChoice {
  service: PaymentServiceRow;
  action: TransactionActionJson;
  plan: FailoverPlan | null;
}

/**
 * A strategy that orders a rule's eligible services itself (success-rate routing,
 * modules/routing-stats): the order to try them in, and why, kept in the trace under `strategy`.
 * Later strategies (least cost, a breaker's skips) plug in here.
 */
export type ServiceRanker = (eligible: readonly string[]) => {
  strategy: string;
  order: string[];
  explanation: object;
};

/** A routable service as routing sees it; `position`: its place in the order being tried. */
export const candidateOf = (r: PaymentServiceRow, position = r.position): RoutingCandidate => ({
  id: r.id,
  definitionId: r.payment_service_definition_id,
  method: r.method,
  displayName: r.display_name,
  acceptedCurrencies: r.accepted_currencies,
  acceptedCountries: r.accepted_countries,
  active: r.active,
  position,
});

/**
 * Routes with the matched `route-transaction` rule, if any: its services in its order (or its
 * weighted draw), each still checked for eligibility; without a rule (or with a forced service)
 * the first eligible service by position. `rows`: the routable services of the merchant account.
 */
export function chooseRoute(
  rows: readonly PaymentServiceRow[],
  rule: FlowRule | null,
  request: RoutingRequest,
  flow: TransactionActionJson['flow'],
  splitKey: string,
  now: Date,
  rank: ServiceRanker | null = null,
): RouteChoice {
  if (!rule || request.forcedServiceId) {
    const trace = route(
      rows.map((r) => candidateOf(r)),
      request,
    );
    if (!trace.selected) throw noRoute(noRouteMessage(request, trace), request, trace);
    return {
      service: rows.find((r) => r.id === trace.selected)!,
      action: actionOf(flow, trace.rule, trace, now),
      plan: null,
    };
  }
  const outcome = routeOutcomeOf(rule);
  const order = serviceOrder(outcome, splitKey);
  const byId = new Map(rows.map((r) => [r.id, r]));
  // Services of the rule that are no longer routable (deleted, or made inactive since) keep their place in the trace.
  const known = order.flatMap((id, i) => (byId.has(id) ? [candidateOf(byId.get(id)!, i)] : []));
  // `breaker: false` on the rule: its services are routed to whatever their circuits say.
  const trace = route(known, outcome.breaker !== false ? request : { ...request, breakers: null });
  for (const id of order)
    if (!byId.has(id)) trace.skipped.push({ payment_service_id: id, reason: 'inactive_or_deleted' });
  if (!trace.selected) {
    const why = trace.skipped.map((s) => `${s.payment_service_id}: ${s.reason.replaceAll('_', ' ')}`).join('; ');
    const wallet = walletTokenRefusal(request, trace) ?? networkTokenRefusal(request, trace);
    throw noRoute(
      `The routing rule ${rule.id} matched, but none of its payment services can process this transaction (${why})${wallet ? `. ${wallet}` : ''}`,
      request,
      trace,
    );
  }
  const ranked = rank ? rank(trace.eligible) : null;
  if (ranked) {
    trace.eligible = ranked.order;
    trace.selected = ranked.order[0]!;
  }
  const plan: FailoverPlan = {
    ruleId: rule.id,
    order: trace.eligible,
    maxAttempts: outcome.max_attempts,
    deadline: now.getTime() + outcome.time_budget_seconds * 1000,
    retryOnDeclines: new Set(outcome.retry_on_declines),
    stepUp: outcome.step_up_on_soft_decline,
    skipped: trace.skipped,
  };
  const extra = {
    order,
    ...(outcome.weights ? { weights: outcome.weights } : {}),
    max_attempts: outcome.max_attempts,
    time_budget_seconds: outcome.time_budget_seconds,
    ...(outcome.step_up_on_soft_decline ? { step_up_on_soft_decline: true } : {}),
    ...(ranked ? { strategy: ranked.strategy, [ranked.strategy]: ranked.explanation } : {}),
    ...(outcome.breaker === false ? { breaker: false } : {}),
  };
  return {
    service: byId.get(trace.selected)!,
    action: actionOf(flow, rule.id, { ...trace, rule: 'flow-rule' }, now, extra),
    plan,
  };
}

/** The 400 of a transaction no service can take; on the token when an encrypted wallet token is why. */
function noRoute(message: string, request: RoutingRequest, trace: RoutingTrace): AppError {
  if (!walletTokenRefusal(request, trace)) return new AppError('bad_request', message);
  return fieldRefusal('body', '/payment_method/token', message, 'wallet_token_not_accepted');
}

function actionOf(
  flow: TransactionActionJson['flow'],
  ruleId: string,
  trace: RoutingTrace,
  now: Date,
  extra: Record<string, unknown> = {},
): TransactionActionJson {
  return {
    id: 'route-transaction',
    flow,
    rule_id: ruleId,
    created_at: now.toISOString(),
    outcome: { ...trace, ...extra },
  };
}
