import type { CaptureRules } from '../../../connectors/connector.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { AppError, invalidField } from '../../../errors/app-error.ts';
import type { CaptureTransactionBody } from '../create-transaction.schema.ts';
import type { Patch } from '../outcomes.ts';
import { captureRefusal } from '../transaction-status.ts';
import { reviewHoldRefusal } from '../review/review-hold.ts';
import type { TransactionAmounts, TransactionBasis } from '../transactions.repo.ts';

/** The columns `planCapture` reads. */
export type CaptureFacts = Pick<
  TransactionRow,
  'status' | 'authorized_amount' | 'capture_limit' | 'captured_amount' | 'capture_reserved' | 'capture_closed'
> &
  Partial<Pick<TransactionRow, 'pending_review'>>;

/** What a capture reserves before its connector call. */
export interface CapturePlan {
  amount: number;
  /** Closes capturing on the transaction. */
  final: boolean;
}

/**
 * Pure: a capture checked against the state machine and the amounts, as both reservations (under
 * the row lock, and the guarded statement of capture-transaction.service.ts) check it. `rules`:
 * the connection's; null when the state refuses the capture before they are looked up.
 */
export function planCapture(
  row: CaptureFacts,
  body: Pick<CaptureTransactionBody, 'amount' | 'final'>,
  rules: CaptureRules | null,
): CapturePlan {
  // Held for a manual anti-fraud review (decision 0144): approving the review is what releases it.
  if (row.pending_review) throw reviewHoldRefusal();
  const refusal = captureRefusal(row);
  if (refusal) throw new AppError('bad_request', refusal);
  const final = body.final ?? true;
  if (!final && !rules?.multiCapture) {
    throw invalidField(
      'body',
      '/final',
      'final must be true (or omitted): multi-capture is not enabled on this payment service connection',
    );
  }
  const remaining = row.authorized_amount - row.captured_amount - row.capture_reserved;
  const headroom = row.capture_limit - row.captured_amount - row.capture_reserved;
  const amount = body.amount ?? Math.max(remaining, 0);
  if (amount > headroom) {
    const over =
      row.capture_limit > row.authorized_amount
        ? ` (over-capture included: at most ${headroom})`
        : ` (at most ${Math.max(remaining, 0)} remains authorized)`;
    throw invalidField('body', '/amount', `amount exceeds what can be captured${over}`);
  }
  if (amount === 0 && row.captured_amount === 0 && final)
    throw invalidField(
      'body',
      '/amount',
      'amount must be greater than 0 for the first capture; void the transaction to release it',
    );
  return { amount, final };
}

/** Pure: the values `planCapture` decided from; a reservation made from them is right while they hold. */
export function captureBasis(row: CaptureFacts): TransactionBasis {
  return {
    status: row.status,
    authorized_amount: row.authorized_amount,
    capture_limit: row.capture_limit,
    captured_amount: row.captured_amount,
    capture_reserved: row.capture_reserved,
    capture_closed: row.capture_closed,
  };
}

const MOVED_AMOUNTS = ['captured_amount', 'capture_reserved'] as const;

/**
 * Pure: `patch` (worked out from `row`) with its capture amounts turned into moves relative to the
 * stored row, as `releaseRefundReservationQuery` moves a refund's: the update then adds to what
 * the row holds when it runs instead of overwriting it with what `row` held.
 */
export function relativeAmounts(
  row: Pick<TransactionRow, (typeof MOVED_AMOUNTS)[number]>,
  patch: Patch,
): { patch: Patch; add: TransactionAmounts } {
  const rest: Patch = { ...patch };
  const add: TransactionAmounts = {};
  for (const column of MOVED_AMOUNTS) {
    const value = patch[column];
    if (typeof value !== 'number') continue;
    add[column] = value - row[column];
    delete rest[column];
  }
  return { patch: rest, add };
}
