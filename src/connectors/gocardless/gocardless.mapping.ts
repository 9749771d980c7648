import { ConnectorError, type SyncOutcome } from '../connector.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * GoCardless's statuses and errors in our terms, as complete tables the compiler checks (STYLE E4,
 * status-table.ts). The values are those of GoCardless's API reference
 * (developer.gocardless.com/api-reference): billing requests, mandates, payments, refunds. A value
 * these tables do not know is an unknown outcome (`unknownStatus`), never a decline.
 */

/** developer.gocardless.com/api-reference/#billing-requests-billing-requests (`status`). */
export type GcBillingRequestStatus = 'pending' | 'ready_to_fulfil' | 'fulfilling' | 'fulfilled' | 'cancelled';
/** developer.gocardless.com/api-reference/#core-endpoints-mandates (`status`). */
export type GcMandateStatus =
  | 'pending_customer_approval'
  | 'pending_submission'
  | 'submitted'
  | 'active'
  | 'suspended_by_payer'
  | 'failed'
  | 'cancelled'
  | 'expired'
  | 'consumed'
  | 'blocked'
  | 'transferred';
/** developer.gocardless.com/api-reference/#core-endpoints-payments (`status`). */
export type GcPaymentStatus =
  | 'pending_customer_approval'
  | 'pending_submission'
  | 'submitted'
  | 'confirmed'
  | 'paid_out'
  | 'cancelled'
  | 'customer_approval_denied'
  | 'failed'
  | 'charged_back';
/** developer.gocardless.com/api-reference/#core-endpoints-refunds (`status`). */
export type GcRefundStatus =
  | 'created'
  | 'pending_submission'
  | 'submitted'
  | 'paid'
  | 'cancelled'
  | 'bounced'
  | 'funds_returned'
  | 'failed';

/** A billing request: `waiting` for its payer, `fulfilled` (its mandate exists), or `cancelled`. */
export const BILLING_REQUEST_STATUS = {
  pending: 'waiting',
  ready_to_fulfil: 'waiting',
  fulfilling: 'waiting',
  fulfilled: 'fulfilled',
  cancelled: 'cancelled',
} as const satisfies Record<GcBillingRequestStatus, 'waiting' | 'fulfilled' | 'cancelled'>;

/** A mandate: `usable` (payments can be created against it, even before its bank confirms it) or `unusable`. */
export const MANDATE_STATUS = {
  pending_customer_approval: 'usable',
  pending_submission: 'usable',
  submitted: 'usable',
  active: 'usable',
  // The payer must re-authorise: no new payment now.
  suspended_by_payer: 'unusable',
  failed: 'unusable',
  cancelled: 'unusable',
  expired: 'unusable',
  consumed: 'unusable',
  blocked: 'unusable',
  // Moved to another bank account by the payer's bank: GoCardless follows it, still usable.
  transferred: 'usable',
} as const satisfies Record<GcMandateStatus, 'usable' | 'unusable'>;

/**
 * A payment (a collection): `pending` until the scheme reports (days later), `succeeded` once
 * confirmed (a later chargeback is a dispute, not an undone collection), `failed` otherwise.
 */
export const PAYMENT_STATUS = {
  pending_customer_approval: 'pending',
  pending_submission: 'pending',
  submitted: 'pending',
  confirmed: 'succeeded',
  paid_out: 'succeeded',
  charged_back: 'succeeded',
  cancelled: 'failed',
  customer_approval_denied: 'failed',
  failed: 'failed',
} as const satisfies Record<GcPaymentStatus, 'pending' | 'succeeded' | 'failed'>;

export const REFUND_STATUS = {
  created: 'processing',
  pending_submission: 'processing',
  submitted: 'processing',
  paid: 'succeeded',
  cancelled: 'failed',
  bounced: 'failed',
  funds_returned: 'failed',
  failed: 'failed',
} as const satisfies Record<GcRefundStatus, 'processing' | 'succeeded' | 'failed'>;

function lookup<K extends string, V>(table: Readonly<Record<K, V>>, field: string, value: unknown): V {
  if (!inTable(table, value)) throw unknownStatus('GoCardless', field, value ?? null);
  return table[value];
}

export const billingRequestStateOf = (s: unknown) => lookup(BILLING_REQUEST_STATUS, 'billing request status', s);
export const mandateStateOf = (s: unknown) => lookup(MANDATE_STATUS, 'mandate status', s);
export const paymentStateOf = (s: unknown) => lookup(PAYMENT_STATUS, 'payment status', s);
export const refundStateOf = (s: unknown) => lookup(REFUND_STATUS, 'refund status', s);

/** A capture's sync status from its payment's state. */
export const CAPTURE_SYNC = {
  pending: 'capture_pending',
  succeeded: 'captured',
  failed: 'failed',
} as const satisfies Record<'pending' | 'succeeded' | 'failed', SyncOutcome['status']>;

/** GoCardless's error body (developer.gocardless.com/api-reference/#api-usage-errors). */
export interface GcError {
  error?: {
    message?: string;
    type?: string;
    code?: number;
    request_id?: string;
    errors?: Array<{ reason?: string; message?: string; field?: string; links?: Record<string, string> }>;
  };
}

/** The first error's reason (GoCardless's specific code), else the error type. */
export function reasonOf(body: unknown): { reason: string; message: string } {
  const error = ((body && typeof body === 'object' ? body : {}) as GcError).error;
  const first = error?.errors?.[0];
  return {
    reason: first?.reason ?? error?.type ?? 'unknown',
    message: first?.message ?? error?.message ?? 'GoCardless refused the request',
  };
}

/**
 * The id of the resource an earlier request with the same Idempotency-Key created: GoCardless
 * answers a repeated create with 409 `idempotent_creation_conflict` and the id in
 * `links.conflicting_resource_id` (developer.gocardless.com/api-reference/#making-requests-idempotency-keys).
 */
export function conflictingIdOf(status: number, body: unknown): string | null {
  if (status !== 409) return null;
  const first = ((body ?? {}) as GcError).error?.errors?.find((e) => e.reason === 'idempotent_creation_conflict');
  return first?.links?.conflicting_resource_id ?? null;
}

/**
 * 422 `invalid_state` and `validation_failed` reasons that are business refusals, with our code;
 * any other 4xx is our request being wrong (`invalid_request`).
 */
const DECLINES: Readonly<Record<string, StandardErrorCode>> = {
  mandate_is_inactive: 'transaction_not_permitted',
  mandate_not_active: 'transaction_not_permitted',
  mandate_cancelled: 'transaction_not_permitted',
  mandate_expired: 'authorization_expired',
  mandate_already_cancelled: 'void_declined',
  mandate_replaced: 'transaction_not_permitted',
  bank_account_disabled: 'transaction_not_permitted',
  refund_payment_invalid_state: 'refund_declined',
  total_amount_confirmation_invalid: 'refund_declined',
  number_of_refunds_exceeded: 'refund_declined',
  refund_amount_exceeds_payment: 'refund_declined',
  available_refund_amount_insufficient: 'refund_declined',
  refund_is_unreachable: 'refund_declined',
  cancellation_failed: 'void_declined',
  payment_amount_too_low: 'invalid_amount',
};

export interface GcDecline {
  errorCode: StandardErrorCode;
  rawResponseCode: string;
  rawResponseDescription: string;
}

/** A 422 answer whose reason is a business refusal, as a decline; null for any other answer. */
export function declineOf(status: number, body: unknown): GcDecline | null {
  if (status !== 422) return null;
  const { reason, message } = reasonOf(body);
  const mapped = DECLINES[reason];
  return mapped ? { errorCode: mapped, rawResponseCode: reason, rawResponseDescription: message } : null;
}

/**
 * A non-2xx answer as a `ConnectorError`: 401/403 the credentials, 429 rate-limited before
 * processing (`unavailable`), 5xx GoCardless may have acted (`timeout`: asked again with the same
 * Idempotency-Key), other 4xx our request. The message names GoCardless's reason and request id.
 */
export function httpError(status: number, body: unknown): ConnectorError {
  const { reason, message } = reasonOf(body);
  const requestId = ((body ?? {}) as GcError).error?.request_id;
  const raw = { code: reason, description: message };
  const where = `${reason}${requestId ? `, request_id ${requestId}` : ''}`;
  if (status === 401 || status === 403)
    return new ConnectorError('invalid_request', `GoCardless refused the access token (${status} ${where})`, raw);
  if (status === 429) return new ConnectorError('unavailable', `GoCardless rate-limited the request (${where})`, raw);
  if (status >= 500)
    return new ConnectorError('timeout', `GoCardless could not process the request (${status} ${where})`, raw);
  return new ConnectorError('invalid_request', `GoCardless refused the request (${status} ${where})`, raw);
}
