import { createHash } from 'node:crypto';
import type { FlowActionName, FlowConditionJson, FlowName } from '../../db/schema-flow-rules.ts';
import { conditionMiss, type FlowFacts } from './rule-conditions.ts';

/**
 * What the rules of a flow decide for a transaction. Pure: the rules come from the cache
 * (rule-cache.ts), so deciding costs no database round trip.
 */

/** A rule as the engine uses it (enabled rules only, in position order). */
export interface FlowRule {
  id: string;
  flow: FlowName;
  action: FlowActionName;
  position: number;
  enabled: boolean;
  conditions: FlowConditionJson[];
  outcome: Record<string, unknown>;
}

/** The actions of each flow, in the order the engine evaluates them. */
export const FLOW_ACTIONS: Record<FlowName, readonly FlowActionName[]> = {
  checkout: ['select-payment-options'],
  'card-transaction': ['decline-early', 'route-transaction', 'skip-3ds'],
  'non-card-transaction': ['decline-early', 'route-transaction'],
  'redirect-transaction': ['decline-early', 'route-transaction'],
};

/** Failover bounds of a `route-transaction` rule when it does not set them. */
export const ROUTE_DEFAULTS = {
  maxAttempts: 3,
  timeBudgetSeconds: 30,
  /** Soft declines: another acquirer may well approve them. */
  retryOnDeclines: ['do_not_honor', 'issuer_unavailable', 'try_again_later', 'processing_error'],
} as const;

/**
 * Declines no rule may retry: the card itself is refused (lost, stolen, fraud, wrong number or
 * expiry, closed account). Retrying them elsewhere is what card schemes fine as decline
 * laundering. `insufficient_funds` is not among them: a merchant may opt in.
 */
export const HARD_DECLINES = [
  'stolen_card',
  'lost_card',
  'pickup_card',
  'suspected_fraud',
  'invalid_card_number',
  'incorrect_card_number',
  'expired_card',
  'restricted_card',
  'blocked_card',
  'account_closed',
  'invalid_account',
  'revoked_authorization',
  'incorrect_cvv',
  'authentication_required',
] as const;

/** How a `route-transaction` rule chooses its first service (docs/routing.md). */
export const ROUTE_STRATEGIES = ['static', 'success_rate', 'least_cost'] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

/** Parameters of the `success_rate` strategy when the rule does not set them. */
export const SUCCESS_RATE_DEFAULTS = { minSamples: 20, explorationPercent: 10, windowMinutes: 60 } as const;

/** Points of authorization rate a cheaper service may be below the best and still go first (strategy `least_cost`). */
export const COST_MARGIN_DEFAULT = 0.5;

export interface RouteOutcome {
  payment_service_ids: string[];
  /** Same length as the ids, summing to 100: the first service is drawn by weight. */
  weights: number[] | null;
  max_attempts: number;
  time_budget_seconds: number;
  retry_on_declines: string[];
  strategy: RouteStrategy;
  min_samples: number;
  exploration_percent: number;
  window_minutes: number;
  /** false: the rule's services are routed to whatever their circuits (circuit breakers, docs/routing.md). */
  breaker?: boolean;
  /** least_cost: points of authorization rate below the best that a cheaper service may be. */
  cost_margin_percent: number;
  /** Retry a decline asking for authentication once with 3DS (docs/routing.md, "Step-up authentication on retry"). */
  step_up_on_soft_decline: boolean;
}

export const routeOutcomeOf = (rule: FlowRule): RouteOutcome => {
  const o = rule.outcome as Partial<RouteOutcome>;
  return {
    payment_service_ids: o.payment_service_ids ?? [],
    weights: o.weights ?? null,
    max_attempts: o.max_attempts ?? ROUTE_DEFAULTS.maxAttempts,
    time_budget_seconds: o.time_budget_seconds ?? ROUTE_DEFAULTS.timeBudgetSeconds,
    retry_on_declines: o.retry_on_declines ?? [...ROUTE_DEFAULTS.retryOnDeclines],
    strategy: o.strategy ?? 'static',
    min_samples: o.min_samples ?? SUCCESS_RATE_DEFAULTS.minSamples,
    exploration_percent: o.exploration_percent ?? SUCCESS_RATE_DEFAULTS.explorationPercent,
    window_minutes: o.window_minutes ?? SUCCESS_RATE_DEFAULTS.windowMinutes,
    breaker: o.breaker ?? true,
    cost_margin_percent: o.cost_margin_percent ?? COST_MARGIN_DEFAULT,
    step_up_on_soft_decline: o.step_up_on_soft_decline ?? false,
  };
};

/** The first enabled rule of the list whose every condition holds. */
export function firstMatch(rules: readonly FlowRule[], facts: FlowFacts): FlowRule | null {
  for (const rule of rules) {
    if (rule.enabled && rule.conditions.every((c) => conditionMiss(c, facts) === null)) return rule;
  }
  return null;
}

export interface RuleExplanation {
  rule_id: string;
  position: number;
  enabled: boolean;
  matched: boolean;
  /** Why it did not decide: `disabled`, `conditions` (see failed_conditions), `earlier_rule_matched`; null for the winner. */
  not_matched_because: 'disabled' | 'conditions' | 'earlier_rule_matched' | null;
  /** Each condition that does not hold (index into the rule's `conditions`), whatever the rule's state. */
  failed_conditions: Array<{ index: number; field: string; operator: string; reason: string }>;
}

/** Every rule of the list against the facts, for the dry run; `matched` marks the winner only. */
export function explainRules(
  rules: readonly FlowRule[],
  facts: FlowFacts,
): { winner: FlowRule | null; rules: RuleExplanation[] } {
  let winner: FlowRule | null = null;
  const explained = rules.map((rule): RuleExplanation => {
    const failed = rule.conditions.flatMap((c, index) => {
      const reason = conditionMiss(c, facts);
      return reason === null ? [] : [{ index, field: c.field, operator: c.operator, reason }];
    });
    const because = !rule.enabled
      ? 'disabled'
      : failed.length > 0
        ? 'conditions'
        : winner !== null
          ? 'earlier_rule_matched'
          : null;
    if (because === null) winner = rule;
    return {
      rule_id: rule.id,
      position: rule.position,
      enabled: rule.enabled,
      matched: because === null,
      not_matched_because: because,
      failed_conditions: failed,
    };
  });
  return { winner, rules: explained };
}

/** 0..99, the same for the same key: the side of a weighted split. */
export function splitBucket(key: string): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % 100;
}

/**
 * The order a `route-transaction` rule tries its services in: the listed order, or with weights
 * the service drawn for `splitKey` first and the others after it in listed order (fallbacks).
 * The draw depends on the key only, so a retried request keeps its side of the split.
 */
export function serviceOrder(
  outcome: Pick<RouteOutcome, 'payment_service_ids' | 'weights'>,
  splitKey: string,
): string[] {
  const ids = outcome.payment_service_ids;
  if (!outcome.weights) return [...ids];
  const bucket = splitBucket(splitKey);
  let cumulative = 0;
  let drawn = ids[0]!;
  for (const [i, id] of ids.entries()) {
    cumulative += outcome.weights[i] ?? 0;
    if (bucket < cumulative) {
      drawn = id;
      break;
    }
  }
  return [drawn, ...ids.filter((id) => id !== drawn)];
}
