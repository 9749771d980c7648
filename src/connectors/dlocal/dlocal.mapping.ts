import { ConnectorError } from '../connector.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * dLocal's statuses and errors in our terms, as complete tables the compiler checks (STYLE E4,
 * status-table.ts). dLocal has no official Node library; the values are those of its API reference.
 * A value these tables do not know is an unknown outcome (`unknownStatus`), never a decline.
 */

/**
 * A PIX payment's `status` (docs.dlocal.com/reference/payment-status-codes). `AUTHORIZED` and
 * `VERIFIED` are card statuses a PIX payment never has: unknown here, left to reconciliation.
 */
export type DlocalPaymentStatus = 'PENDING' | 'PAID' | 'REJECTED' | 'CANCELLED' | 'EXPIRED';
/** A refund's `status` (docs.dlocal.com/reference/refund-status-codes). */
export type DlocalRefundStatus = 'PENDING' | 'SUCCESS' | 'REJECTED' | 'CANCELLED';

/**
 * A PIX payment: `PENDING` waits for the buyer to pay the code; `PAID` is the buyer's transfer,
 * final (a sale); the others end it unpaid.
 */
export const PAYMENT_STATUS = {
  PENDING: 'waiting',
  PAID: 'paid',
  REJECTED: 'rejected',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
} as const satisfies Record<DlocalPaymentStatus, 'waiting' | 'paid' | 'rejected' | 'cancelled' | 'expired'>;

export const REFUND_STATUS = {
  PENDING: 'processing',
  SUCCESS: 'succeeded',
  REJECTED: 'declined',
  CANCELLED: 'failed',
} as const satisfies Record<DlocalRefundStatus, 'processing' | 'succeeded' | 'declined' | 'failed'>;

/** The error code of a payment that ended unpaid. */
export const UNPAID_CODE = {
  rejected: 'do_not_honor',
  cancelled: 'do_not_honor',
  // The buyer did not pay the code before it expired.
  expired: 'authorization_expired',
} as const satisfies Record<'rejected' | 'cancelled' | 'expired', StandardErrorCode>;

function lookup<K extends string, V>(table: Readonly<Record<K, V>>, field: string, value: unknown): V {
  if (!inTable(table, value)) throw unknownStatus('dLocal', field, value ?? null);
  return table[value];
}

export const paymentStateOf = (status: unknown) => lookup(PAYMENT_STATUS, 'payment status', status);
export const refundStateOf = (status: unknown) => lookup(REFUND_STATUS, 'refund status', status);

/** dLocal's error body (docs.dlocal.com/reference/payins-errors). */
export interface DlocalError {
  code?: number;
  message?: string;
  param?: string;
}

/**
 * Error codes that are a business refusal of the payment or refund (HTTP 400/403), not a fault of
 * our request: a decline (docs.dlocal.com/reference/payins-errors).
 */
export const DECLINES: Readonly<Record<string, StandardErrorCode>> = {
  // User unauthorized due to cadastral situation (the CPF/CNPJ is irregular at the Receita Federal).
  '5005': 'transaction_not_permitted',
  // User limit exceeded.
  '5006': 'limit_exceeded',
  // Amount exceeded.
  '5007': 'limit_exceeded',
  // Insufficient funds (of the merchant's balance, for a refund).
  '5012': 'refund_declined',
  // User blacklisted.
  '5014': 'blocked_by_risk_rules',
  // Amount too low.
  '5016': 'invalid_amount',
  // Payment method not available / not enabled for the account.
  '5003': 'transaction_not_permitted',
};

export interface DlocalDecline {
  errorCode: StandardErrorCode;
  rawResponseCode: string;
  rawResponseDescription: string;
}

export function codeOf(body: unknown): { code: string; message: string } {
  const error = (body ?? {}) as DlocalError;
  return { code: error.code === undefined ? 'UNKNOWN' : String(error.code), message: error.message ?? '' };
}

/** A 400/403 answer whose code is a business refusal, as a decline; null for any other answer. */
export function declineOf(status: number, body: unknown, fallback?: StandardErrorCode): DlocalDecline | null {
  if (status !== 400 && status !== 403) return null;
  const { code, message } = codeOf(body);
  const mapped = DECLINES[code];
  if (!mapped) return null;
  return {
    errorCode: fallback && mapped === 'refund_declined' ? fallback : mapped,
    rawResponseCode: code,
    rawResponseDescription: message,
  };
}

/**
 * A non-2xx answer as a `ConnectorError`. 401: the credentials or signature (`invalid_request`);
 * 429: rate-limited before processing (`unavailable`); 5xx: dLocal may have acted (`timeout`, found
 * later by sync); other 4xx: our request (`invalid_request`). The message names dLocal's code, never a secret.
 */
export function httpError(status: number, body: unknown): ConnectorError {
  const { code, message } = codeOf(body);
  const raw = { code, description: message };
  if (status === 401 || status === 403)
    return new ConnectorError(
      'invalid_request',
      `dLocal refused the credentials or signature (${status} ${code})`,
      raw,
    );
  if (status === 429) return new ConnectorError('unavailable', `dLocal rate-limited the request (${code})`, raw);
  if (status >= 500)
    return new ConnectorError('timeout', `dLocal could not process the request (${status} ${code})`, raw);
  return new ConnectorError('invalid_request', `dLocal refused the request (${status} ${code}: ${message})`, raw);
}
