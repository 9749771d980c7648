import { ConnectorError, type SyncOutcome } from '../connector.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * PayPal's statuses and errors in our terms, as complete tables the compiler checks (STYLE E4,
 * status-table.ts). The status values are those of PayPal's REST API reference (Orders v2,
 * Payments v2), the same as the enums of PayPal's server SDK (`OrderStatus`, `AuthorizationStatus`,
 * `CaptureStatus`, `RefundStatus`), which we do not depend on (docs/connectors-paypal.md). A value
 * these tables do not know is an unknown outcome (`unknownStatus`), never a decline or a failure.
 */

/** developer.paypal.com/docs/api/orders/v2/#orders_get (`status`). */
export type PaypalOrderStatus = 'CREATED' | 'SAVED' | 'APPROVED' | 'VOIDED' | 'COMPLETED' | 'PAYER_ACTION_REQUIRED';
/** developer.paypal.com/docs/api/payments/v2/#authorizations_get (`status`). */
export type PaypalAuthorizationStatus = 'CREATED' | 'CAPTURED' | 'DENIED' | 'PARTIALLY_CAPTURED' | 'VOIDED' | 'PENDING';
/** developer.paypal.com/docs/api/payments/v2/#captures_get (`status`). */
export type PaypalCaptureStatus = 'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'PENDING' | 'REFUNDED' | 'FAILED';
/** developer.paypal.com/docs/api/payments/v2/#refunds_get (`status`). */
export type PaypalRefundStatus = 'CANCELLED' | 'FAILED' | 'PENDING' | 'COMPLETED';

/**
 * An order before its payment: `waiting` for the buyer, `approved` (authorize or capture it now),
 * `completed` (its payment is in `purchase_units[].payments`), `voided` (PayPal voided it: no payment).
 */
export const ORDER_STATUS = {
  CREATED: 'waiting',
  PAYER_ACTION_REQUIRED: 'waiting',
  // SAVED: kept for a later completion by the merchant, which we never ask for: still waiting.
  SAVED: 'waiting',
  APPROVED: 'approved',
  COMPLETED: 'completed',
  VOIDED: 'voided',
} as const satisfies Record<PaypalOrderStatus, 'waiting' | 'approved' | 'completed' | 'voided'>;

/** An authorization, as the status of the payment it is (sync of an authorize, a void). */
export const AUTHORIZATION_STATUS = {
  CREATED: 'authorized',
  // Partly captured: the rest stays authorized (multi-capture).
  PARTIALLY_CAPTURED: 'authorized',
  CAPTURED: 'captured',
  DENIED: 'declined',
  VOIDED: 'voided',
  // Under review at PayPal: asked again later.
  PENDING: 'pending',
} as const satisfies Record<PaypalAuthorizationStatus, SyncOutcome['status']>;

/** A capture's own status: refunds later do not undo the capture. */
export const CAPTURE_STATUS = {
  COMPLETED: 'succeeded',
  PARTIALLY_REFUNDED: 'succeeded',
  REFUNDED: 'succeeded',
  PENDING: 'pending',
  DECLINED: 'declined',
  FAILED: 'failed',
} as const satisfies Record<PaypalCaptureStatus, 'succeeded' | 'pending' | 'declined' | 'failed'>;

export const REFUND_STATUS = {
  COMPLETED: 'succeeded',
  PENDING: 'processing',
  FAILED: 'failed',
  CANCELLED: 'failed',
} as const satisfies Record<PaypalRefundStatus, 'succeeded' | 'processing' | 'failed'>;

function lookup<K extends string, V>(table: Readonly<Record<K, V>>, field: string, value: unknown): V {
  if (!inTable(table, value)) throw unknownStatus('PayPal', field, value ?? null);
  return table[value];
}

export const orderStateOf = (status: unknown) => lookup(ORDER_STATUS, 'order status', status);
export const authorizationStateOf = (status: unknown) => lookup(AUTHORIZATION_STATUS, 'authorization status', status);
export const captureStateOf = (status: unknown) => lookup(CAPTURE_STATUS, 'capture status', status);
export const refundStateOf = (status: unknown) => lookup(REFUND_STATUS, 'refund status', status);

/** PayPal's error body (developer.paypal.com/api/rest/responses/#link-errorresponses). */
export interface PaypalError {
  name?: string;
  message?: string;
  debug_id?: string;
  details?: Array<{ issue?: string; description?: string; field?: string }>;
}

/** The first detail's issue of an error body (PayPal's specific code), else its name. */
export function issueOf(body: unknown): { issue: string; description: string } {
  const error = (body && typeof body === 'object' ? body : {}) as PaypalError;
  const detail = error.details?.[0];
  return {
    issue: detail?.issue ?? error.name ?? 'UNKNOWN',
    description: detail?.description ?? error.message ?? 'PayPal refused the request',
  };
}

/**
 * 422 UNPROCESSABLE_ENTITY issues that are business refusals (a decline outcome, not a technical
 * failure), with our code (developer.paypal.com/docs/api/orders/v2/#errors, /payments/v2/#errors).
 * Any other 422 issue is our request being wrong: `invalid_request`.
 */
const DECLINES: Readonly<Record<string, StandardErrorCode>> = {
  INSTRUMENT_DECLINED: 'do_not_honor',
  PAYER_CANNOT_PAY: 'transaction_not_permitted',
  PAYER_ACCOUNT_RESTRICTED: 'restricted_card',
  PAYER_ACCOUNT_LOCKED_OR_CLOSED: 'restricted_card',
  PAYEE_ACCOUNT_RESTRICTED: 'transaction_not_permitted',
  PAYEE_BLOCKED_TRANSACTION: 'blocked_by_risk_rules',
  TRANSACTION_REFUSED: 'do_not_honor',
  TRANSACTION_LIMIT_EXCEEDED: 'limit_exceeded',
  TRANSACTION_RECEIVING_LIMIT_EXCEEDED: 'limit_exceeded',
  COMPLIANCE_VIOLATION: 'blocked_by_risk_rules',
  REDIRECT_PAYER_FOR_ALTERNATE_FUNDING: 'do_not_honor',
  MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED: 'limit_exceeded',
  DUPLICATE_INVOICE_ID: 'duplicate_transaction',
  ORDER_NOT_APPROVED: 'authentication_required',
  ORDER_EXPIRED: 'authorization_expired',
  AUTHORIZATION_EXPIRED: 'authorization_expired',
  AUTHORIZATION_VOIDED: 'capture_declined',
  AUTHORIZATION_DENIED: 'capture_declined',
  AUTHORIZATION_ALREADY_CAPTURED: 'capture_declined',
  MAX_CAPTURE_AMOUNT_EXCEEDED: 'capture_declined',
  MAX_CAPTURE_COUNT_EXCEEDED: 'capture_declined',
  DECIMAL_PRECISION: 'invalid_amount',
  CANNOT_BE_VOIDED: 'void_declined',
  PREVIOUSLY_CAPTURED: 'void_declined',
  CAPTURE_FULLY_REFUNDED: 'refund_declined',
  REFUND_AMOUNT_EXCEEDED: 'refund_declined',
  REFUND_TIME_LIMIT_EXCEEDED: 'refund_declined',
  REFUND_NOT_ALLOWED: 'refund_declined',
  PARTIAL_REFUND_NOT_ALLOWED: 'refund_declined',
  CAPTURE_DISPUTED_PARTIAL_REFUND_NOT_ALLOWED: 'refund_declined',
  REFUND_CAPTURE_CURRENCY_MISMATCH: 'refund_declined',
  INSUFFICIENT_FUNDS: 'insufficient_funds',
};

export interface PaypalDecline {
  errorCode: StandardErrorCode;
  rawResponseCode: string;
  rawResponseDescription: string;
}

/**
 * A 422 answer whose issue is a business refusal, as a decline; null for any other answer. `fallback`:
 * the code of a follow-up's refusal (capture, void, refund) whose issue has none of its own here.
 */
export function declineOf(status: number, body: unknown, fallback?: StandardErrorCode): PaypalDecline | null {
  if (status !== 422) return null;
  const { issue, description } = issueOf(body);
  const mapped = DECLINES[issue];
  if (!mapped) return null;
  const generic = mapped === 'do_not_honor' || mapped.endsWith('_declined');
  return {
    errorCode: generic && fallback ? fallback : mapped,
    rawResponseCode: issue,
    rawResponseDescription: description,
  };
}

/**
 * A non-2xx answer as a `ConnectorError`. 401/403: the credentials (`invalid_request`); 400 and
 * other 4xx: our request (`invalid_request`); 429: rate-limited before processing
 * (`unavailable`); 5xx: PayPal may have acted (`timeout`, asked again with the same
 * PayPal-Request-Id). The message names PayPal's issue and debug_id, never a secret.
 */
export function httpError(status: number, body: unknown): ConnectorError {
  const { issue, description } = issueOf(body);
  const debugId = (body as PaypalError | null)?.debug_id;
  const raw = { code: issue, description };
  const where = `${issue}${debugId ? `, debug_id ${debugId}` : ''}`;
  if (status === 401 || status === 403)
    return new ConnectorError('invalid_request', `PayPal refused the credentials (${status} ${where})`, raw);
  if (status === 429) return new ConnectorError('unavailable', `PayPal rate-limited the request (${where})`, raw);
  if (status >= 500)
    return new ConnectorError('timeout', `PayPal could not process the request (${status} ${where})`, raw);
  return new ConnectorError('invalid_request', `PayPal refused the request (${status} ${where})`, raw);
}
