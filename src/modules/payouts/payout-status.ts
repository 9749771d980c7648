import type { CallFailure, CallSuccess } from '../../connectors/call.ts';
import type { PayoutOutcome, PayoutSyncOutcome } from '../../connectors/connector.ts';
import type { PayoutAttemptStatus, PayoutStatus } from '../../db/schema-payouts.ts';

/**
 * The payout state machine (pure). A payout is `pending` from the moment it is recorded until a
 * final answer: `succeeded`, `declined` or `failed`, and a final status never changes again.
 */

/** What an answer (or the lack of one) means for the payout and its attempt. */
export interface PayoutResolution {
  status: PayoutStatus;
  attemptStatus: PayoutAttemptStatus;
  errorCode: string | null;
  rawResponseCode: string | null;
  rawResponseDescription: string | null;
  providerPayoutId: string | null;
  /** The attempt is still open: reconciliation asks the provider again. */
  open: boolean;
}

const OPEN_ATTEMPTS: readonly PayoutAttemptStatus[] = ['in_flight', 'unknown', 'pending'];

export const isOpenAttempt = (status: PayoutAttemptStatus) => OPEN_ATTEMPTS.includes(status);

/** Only a pending payout moves, and only to another status. */
export const canMove = (from: PayoutStatus, to: PayoutStatus) => from === 'pending' && to !== 'pending';

/**
 * When reconciliation looks at an open attempt next, after `checks` earlier looks: 5 minutes, then
 * 1 hour, then daily (the schedule of transaction attempts).
 */
export function nextCheckAt(checks: number, now: Date): Date {
  const delaysMs = [5 * 60_000, 60 * 60_000];
  return new Date(now.getTime() + (delaysMs[checks] ?? 24 * 60 * 60_000));
}

/**
 * The payout call's result. A timeout (or an unexpected error) is an unknown outcome, never a
 * failure: the provider may have paid. `unavailable` certainly sent nothing, and `invalid_request`
 * was refused: both fail the payout.
 */
export function resolveCall(result: CallSuccess<PayoutOutcome> | CallFailure): PayoutResolution {
  if (result.ok) {
    const answer = result.value;
    const status = answer.status;
    return {
      status,
      attemptStatus: status,
      errorCode: answer.errorCode,
      rawResponseCode: answer.rawResponseCode,
      rawResponseDescription: answer.rawResponseDescription,
      providerPayoutId: answer.providerPayoutId,
      open: status === 'pending',
    };
  }
  const blank = { rawResponseCode: null, rawResponseDescription: null, providerPayoutId: null };
  if (result.kind === 'timeout')
    return { ...blank, status: 'pending', attemptStatus: 'unknown', errorCode: null, open: true };
  return {
    ...blank,
    status: 'failed',
    attemptStatus: 'failed',
    errorCode: result.kind === 'unavailable' ? 'service_network_error' : 'service_error',
    open: false,
  };
}

/** A status query's answer; null while the payout is still pending at the provider. */
export function resolveSync(answer: PayoutSyncOutcome): PayoutResolution | null {
  const facts = {
    errorCode: answer.errorCode,
    rawResponseCode: answer.rawResponseCode,
    rawResponseDescription: answer.rawResponseDescription,
    providerPayoutId: answer.providerPayoutId,
    open: false,
  };
  switch (answer.status) {
    case 'pending':
      return null;
    case 'not_found':
      // The call never arrived: nothing was paid.
      return { ...facts, status: 'failed', attemptStatus: 'failed', errorCode: 'service_network_error' };
    default:
      return { ...facts, status: answer.status, attemptStatus: answer.status };
  }
}
