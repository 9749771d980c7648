import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import { HARD_DECLINES } from '../../flows/flow-decisions.ts';
import type { CallResult } from '../connector-call.ts';

/**
 * Failover (cascading retries): after one authorization attempt, whether the engine may try the
 * next payment service of the matched rule. Pure, so the rule that matters most here (never try
 * again after an outcome that may have charged the buyer) is property-tested on its own
 * (failover.test.ts). The engine (create/failover-attempt.ts) records and runs what it decides.
 */

/** The services a matched `route-transaction` rule may try, and its bounds. */
export interface FailoverPlan {
  ruleId: string;
  /** Eligible services in the order to try them; the first is the one tried first. */
  order: readonly string[];
  maxAttempts: number;
  /** Epoch milliseconds after which no new attempt starts. */
  deadline: number;
  retryOnDeclines: ReadonlySet<string>;
  /** The rule's `step_up_on_soft_decline` (routing/step-up.ts); absent: false. */
  stepUp?: boolean;
  /** The rule's services routing left out, with why (the route action's `skipped`): the trace names them when none is left. */
  skipped?: ReadonlyArray<{ payment_service_id: string; reason: string }>;
}

export type FailoverVerdict = { retry: true; next: string; reason: string } | { retry: false; reason: string };

const HARD: ReadonlySet<string> = new Set(HARD_DECLINES);

/**
 * Whether an answer handed the buyer a way to pay: a pending approval (a provider's page, a PIX
 * code), or an approval URL whatever the status says. From then on the buyer may pay at this
 * service, so no other service is tried (a second try could charge twice; docs/routing.md,
 * "Failover of redirect and asynchronous methods").
 */
export const reachedBuyer = (answer: AuthorizeOutcome): boolean =>
  answer.status === 'buyer_approval_pending' || answer.approvalUrl !== null;

/**
 * Why an answer certainly did not charge the buyer (so another service may be tried), or null when
 * it did or may have: an approval, a pending approval or any answer that reached the buyer, a
 * timeout or an unexpected error after the request may have been sent, or a decline the rule does
 * not retry.
 */
export function retryableBecause(
  result: CallResult<AuthorizeOutcome>,
  retryOnDeclines: ReadonlySet<string>,
): string | null {
  if (!result.ok) {
    // `timeout` covers every call whose outcome is unknown (connector-call.ts): reconciliation settles it.
    if (result.kind === 'unavailable') return 'service_unreachable';
    if (result.kind === 'invalid_request') return 'service_refused_request';
    return null;
  }
  const answer = result.value;
  if (reachedBuyer(answer)) return null;
  if (answer.status === 'failed') return `service_failed:${answer.errorCode ?? 'service_error'}`;
  if (answer.status === 'declined') {
    const code = answer.errorCode ?? '';
    return retryOnDeclines.has(code) && !HARD.has(code) ? `soft_decline:${code}` : null;
  }
  return null;
}

/** What to do after attempt number `attempts` (1-based) of the plan answered `result` at `now`. */
export function nextAttempt(
  plan: FailoverPlan,
  attempts: number,
  result: CallResult<AuthorizeOutcome>,
  now: number,
): FailoverVerdict {
  const because = retryableBecause(result, plan.retryOnDeclines);
  if (because === null) return { retry: false, reason: stopReason(result) };
  if (attempts >= plan.maxAttempts) return { retry: false, reason: 'max_attempts_reached' };
  if (now >= plan.deadline) return { retry: false, reason: 'time_budget_spent' };
  const next = plan.order[attempts];
  if (next === undefined) return { retry: false, reason: 'no_more_payment_services' };
  return { retry: true, next, reason: because };
}

function stopReason(result: CallResult<AuthorizeOutcome>): string {
  if (!result.ok) return 'outcome_unknown';
  if (reachedBuyer(result.value)) return 'buyer_reached';
  switch (result.value.status) {
    case 'declined':
      return HARD.has(result.value.errorCode ?? '') ? 'hard_decline' : 'decline_not_retried';
    case 'failed':
      return 'not_retried';
    default:
      return 'answered';
  }
}
