import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { TransactionActionJson } from '../../../db/schema-transactions.ts';
import type { CallResult } from '../connector-call.ts';
import type { FailoverPlan } from './failover.ts';

/**
 * Why the engine did not go on after a matched route-transaction rule's last attempt (docs/routing.md,
 * "The decision trace"): the failover verdict that stopped the cascade (failover.ts `nextAttempt`),
 * and the step-up verdict that refused a decline asking for authentication where the rule allowed a
 * step-up (step-up.ts `stepUpVerdict`). Pure; the transaction's last write adds it to its actions
 * (create-transaction.service.ts), so the trace says why, not only what.
 */
export interface StopNote {
  /** The service that gave the last answer, that attempt (1-based) and its id. */
  at: string;
  attempt: number;
  attempt_id: string;
  /** The last answer's error code (null: an approval-free answer without one, or no answer). */
  error_code: string | null;
  /** Why no failover: nextAttempt's reason, or `next_payment_service_unavailable` (gone or inactive meanwhile). */
  no_failover: string;
  /** The rule's services routing left out (its `skipped`), when they are why no service was left. */
  skipped?: ReadonlyArray<{ payment_service_id: string; reason: string }>;
  /** Why a step-up the rule allows did not happen (stepUpVerdict's reason). */
  no_step_up?: string;
}

/** What the cascade knows of its last attempt. */
export interface LastAttempt {
  serviceId: string;
  attempt: number;
  attemptId: string;
  result: CallResult<AuthorizeOutcome>;
}

/** An error code of the answer, as the attempt records it (`service_network_error` for an unreachable service). */
function errorCodeOf(result: CallResult<AuthorizeOutcome>): string | null {
  if (result.ok) return result.value.errorCode;
  if (result.kind === 'unavailable') return 'service_network_error';
  return result.kind === 'invalid_request' ? 'service_error' : null;
}

/**
 * The note of a cascade stopped for `reason`; null when there is nothing to explain (the answer
 * was an approval: nextAttempt's `answered`).
 */
export function failoverStopNote(plan: FailoverPlan, reason: string, last: LastAttempt): StopNote | null {
  if (reason === 'answered') return null;
  const skipped = reason === 'no_more_payment_services' && plan.skipped?.length ? { skipped: plan.skipped } : {};
  return {
    at: last.serviceId,
    attempt: last.attempt,
    attempt_id: last.attemptId,
    error_code: errorCodeOf(last.result),
    no_failover: reason,
    ...skipped,
  };
}

/** The note with why the step-up was refused (a decline asking for authentication is a hard decline: the note exists). */
export const withStepUpRefusal = (note: StopNote | null, reason: string): StopNote | null =>
  note ? { ...note, no_step_up: reason } : null;

/** The trace action of a note: a route-transaction action whose outcome is `{ stopped }`. */
export function stopAction(
  note: StopNote,
  flow: TransactionActionJson['flow'],
  ruleId: string,
  now: Date,
): TransactionActionJson {
  return { id: 'route-transaction', flow, rule_id: ruleId, created_at: now.toISOString(), outcome: { stopped: note } };
}
