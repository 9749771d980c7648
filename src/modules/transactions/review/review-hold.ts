import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { AppError } from '../../../errors/app-error.ts';

/**
 * The capture hold of a transaction its anti-fraud service sent to review (decision 0144). Its
 * authorization is sent as authorize-only whatever the intent, and nothing captures it until the
 * review is approved. `anti_fraud_decision` keeps `review` after the review ends (the spec), so it
 * tells for good that the authorization captured nothing: an intent `capture` transaction with
 * that decision was captured, if at all, by a capture of its own.
 */

type IntentFacts = Pick<TransactionRow, 'intent' | 'anti_fraud_decision'>;

/** The intent the authorization is sent (and its answers read) with. */
export function authorizationIntent(row: IntentFacts): 'authorize' | 'capture' {
  return row.intent === 'capture' && row.anti_fraud_decision === 'review' ? 'authorize' : row.intent;
}

/** The authorization also captured the payment (a sale): intent `capture`, not held for review. */
export const capturesAtAuthorization = (row: IntentFacts): boolean => authorizationIntent(row) === 'capture';

/** An intent `capture` transaction held at its authorization: approving the review captures it. */
export const heldCapture = (row: IntentFacts): boolean =>
  row.intent === 'capture' && row.anti_fraud_decision === 'review';

export const REVIEW_HOLD_MESSAGE =
  'The transaction is pending a manual anti-fraud review: approve it (POST /transactions/{transaction_id}/review/approve) before capturing it, or decline it';

/** `POST /transactions/{id}/capture` on a transaction pending review: 400, its detail typed `pending_review`. */
export const reviewHoldRefusal = () =>
  new AppError('bad_request', REVIEW_HOLD_MESSAGE, {
    details: [{ location: 'path', pointer: '/transaction_id', message: REVIEW_HOLD_MESSAGE, type: 'pending_review' }],
  });
