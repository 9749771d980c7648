import type { PayoutOutcome } from '../connector-payouts.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * PayPal Payouts statuses in our payout statuses (developer.paypal.com/docs/api/payments.payouts-batch/v1),
 * as complete tables (STYLE E4). A payout is one batch of one item; the item's
 * `transaction_status` decides, the batch's only while PayPal has not split it into items yet.
 */

/** `batch_header.batch_status`. */
export type PaypalBatchStatus = 'DENIED' | 'PENDING' | 'PROCESSING' | 'SUCCESS' | 'CANCELED';
/** `items[].transaction_status` (and the item of `GET /v1/payments/payouts-item/{id}`). */
export type PaypalItemStatus =
  | 'SUCCESS'
  | 'FAILED'
  | 'PENDING'
  | 'UNCLAIMED'
  | 'RETURNED'
  | 'ONHOLD'
  | 'BLOCKED'
  | 'REFUNDED'
  | 'REVERSED'
  | 'DENIED'
  | 'NEW';

type Status = PayoutOutcome['status'];

/**
 * The batch alone (no item yet): PayPal's preliminary checks passed (`PENDING`, `PROCESSING`), or
 * it refused the whole batch (`DENIED`: nothing is paid, e.g. the balance is too low). `SUCCESS`
 * only says the batch was processed: its item decides, so without one it stays pending.
 */
export const BATCH_STATUS = {
  PENDING: 'pending',
  PROCESSING: 'pending',
  SUCCESS: 'pending',
  DENIED: 'declined',
  CANCELED: 'failed',
} as const satisfies Record<PaypalBatchStatus, Status>;

/**
 * The item: `SUCCESS` the funds are in the recipient's account; `PENDING`, `NEW`, `ONHOLD` (PayPal
 * reviews it) and `UNCLAIMED` (the recipient has not accepted it yet; PayPal returns it after 30
 * days) are not final; `FAILED` PayPal could not pay it and took no money; `DENIED` and `BLOCKED`
 * PayPal said no; `RETURNED` the recipient never claimed it and PayPal gave the money back (a
 * payout that never arrived: declined). `REFUNDED` (the recipient sent it back) and `REVERSED`
 * (PayPal took it back) follow a success: the payout is final by then and they change nothing;
 * read while it is still pending, the money did not stay with the recipient: failed.
 */
export const ITEM_STATUS = {
  SUCCESS: 'succeeded',
  PENDING: 'pending',
  NEW: 'pending',
  ONHOLD: 'pending',
  UNCLAIMED: 'pending',
  FAILED: 'failed',
  DENIED: 'declined',
  BLOCKED: 'declined',
  RETURNED: 'declined',
  REFUNDED: 'failed',
  REVERSED: 'failed',
} as const satisfies Record<PaypalItemStatus, Status>;

export function batchStatusOf(status: unknown): Status {
  if (!inTable(BATCH_STATUS, status)) throw unknownStatus('PayPal', 'batch_status', status);
  return BATCH_STATUS[status];
}

export function itemStatusOf(status: unknown): Status {
  if (!inTable(ITEM_STATUS, status)) throw unknownStatus('PayPal', 'transaction_status', status);
  return ITEM_STATUS[status];
}

/** An item's `errors.name` (developer.paypal.com/docs/api/payments.payouts-batch/v1/#errors) → our code; others by the status. */
const ITEM_ERRORS: Readonly<Record<string, StandardErrorCode>> = {
  INSUFFICIENT_FUNDS: 'insufficient_funds',
  RECEIVER_ACCOUNT_LOCKED: 'restricted_card',
  RECEIVER_ACCOUNT_RESTRICTED: 'restricted_card',
  RECEIVER_UNCONFIRMED: 'transaction_not_permitted',
  RECEIVER_UNREGISTERED: 'transaction_not_permitted',
  RECEIVER_YOUTH_ACCOUNT: 'transaction_not_permitted',
  RECEIVER_COUNTRY_NOT_ALLOWED: 'transaction_not_permitted',
  RECEIVING_LIMIT_EXCEEDED: 'limit_exceeded',
  CURRENCY_NOT_SUPPORTED_FOR_RECEIVER: 'currency_not_supported',
  REGULATORY_BLOCKED: 'blocked_by_risk_rules',
  RISK_DECLINE: 'blocked_by_risk_rules',
  DUPLICATE_ITEM: 'duplicate_transaction',
};

/** The standardized error code of a declined or failed payout. */
export function payoutErrorCodeOf(status: 'declined' | 'failed', errorName: string | null): StandardErrorCode {
  const known = errorName && Object.hasOwn(ITEM_ERRORS, errorName) ? ITEM_ERRORS[errorName] : undefined;
  return known ?? (status === 'declined' ? 'do_not_honor' : 'service_error');
}
