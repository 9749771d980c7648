import { ConnectorError, type AuthorizeOutcome, type SyncOutcome } from '../connector.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * Checkout.com's statuses and codes in our terms, as complete tables the compiler checks (STYLE E4,
 * status-table.ts). The values are those of the API reference (api-reference.checkout.com,
 * "Get payment details": `status`) and of the response codes page
 * (www.checkout.com/docs/developer-resources/codes/api-response-codes). A status these tables do not
 * know is an unknown outcome (`unknownStatus`), never a decline or a failure.
 */

/** `status` of a payment (GET /payments/{id}; the 201/202 answer of POST /payments). */
export type CheckoutPaymentStatus =
  | 'Pending'
  | 'Authorized'
  | 'Card Verified'
  | 'Voided'
  | 'Partially Captured'
  | 'Captured'
  | 'Retry Scheduled'
  | 'Declined'
  | 'Canceled'
  | 'Expired'
  | 'Paid'
  | 'Partially Refunded'
  | 'Refunded';

/**
 * A payment's status as the status of its authorization (sync of an authorize). `Pending` is read
 * with the answer's redirect link (checkout.payments.ts): the buyer's 3DS page, or not decided yet.
 */
export const PAYMENT_STATUS = {
  Pending: 'pending',
  Authorized: 'authorized',
  'Card Verified': 'authorized',
  // Partly captured: the rest stays authorized (NonFinal captures).
  'Partially Captured': 'authorized',
  Captured: 'captured',
  Paid: 'captured',
  // Refunds after a capture do not undo it.
  'Partially Refunded': 'captured',
  Refunded: 'captured',
  Voided: 'voided',
  Declined: 'declined',
  // The buyer abandoned the 3DS page, or it timed out: no payment.
  Canceled: 'declined',
  // An authorization that lapsed before any capture.
  Expired: 'voided',
  // A merchant-initiated retry Checkout.com scheduled itself: not final.
  'Retry Scheduled': 'pending',
} as const satisfies Record<CheckoutPaymentStatus, SyncOutcome['status']>;

/** A card payout's status (a payment with a `destination`): `Paid` once the funds are sent. */
export const PAYOUT_STATUS = {
  Pending: 'pending',
  Authorized: 'pending',
  'Card Verified': 'pending',
  'Partially Captured': 'pending',
  Captured: 'pending',
  'Retry Scheduled': 'pending',
  Paid: 'succeeded',
  Declined: 'declined',
  Canceled: 'failed',
  Expired: 'failed',
  Voided: 'failed',
  'Partially Refunded': 'succeeded',
  Refunded: 'succeeded',
} as const satisfies Record<CheckoutPaymentStatus, 'succeeded' | 'pending' | 'declined' | 'failed'>;

export function paymentStatusOf(status: unknown): SyncOutcome['status'] {
  if (!inTable(PAYMENT_STATUS, status)) throw unknownStatus('Checkout.com', 'payment status', status ?? null);
  return PAYMENT_STATUS[status];
}

export function payoutStatusOf(status: unknown): 'succeeded' | 'pending' | 'declined' | 'failed' {
  if (!inTable(PAYOUT_STATUS, status)) throw unknownStatus('Checkout.com', 'payout status', status ?? null);
  return PAYOUT_STATUS[status];
}

/**
 * Decline codes (`response_code` 2xxxx soft, 3xxxx hard, 4xxxx risk) → our standardized codes. A
 * code not here is `do_not_honor` for a decline (error-codes.ts), never a guess; 10000 (Approved),
 * 10100 (Approved, flagged by risk rules) and 10200 (Approved, 3DS attempted) are approvals.
 */
export const DECLINE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '20001': 'do_not_honor',
  '20002': 'do_not_honor',
  '20003': 'transaction_not_permitted',
  '20005': 'do_not_honor',
  '20006': 'do_not_honor',
  '20009': 'try_again_later',
  '20010': 'limit_exceeded',
  '20012': 'transaction_not_permitted',
  '20013': 'invalid_amount',
  '20014': 'invalid_card_number',
  '20015': 'invalid_card_number',
  '20017': 'do_not_honor',
  '20018': 'do_not_honor',
  '20019': 'try_again_later',
  '20020': 'do_not_honor',
  '20021': 'do_not_honor',
  '20022': 'issuer_unavailable',
  '20023': 'transaction_not_permitted',
  '20024': 'do_not_honor',
  '20025': 'do_not_honor',
  '20026': 'do_not_honor',
  '20027': 'do_not_honor',
  '20028': 'issuer_unavailable',
  '20029': 'do_not_honor',
  '20030': 'do_not_honor',
  '20031': 'card_not_supported',
  '20032': 'do_not_honor',
  '20038': 'restricted_card',
  '20039': 'card_not_supported',
  '20040': 'transaction_not_permitted',
  '20042': 'invalid_card_number',
  '20044': 'card_not_supported',
  '20046': 'restricted_card',
  '20051': 'insufficient_funds',
  '20052': 'card_not_supported',
  '20053': 'card_not_supported',
  '20054': 'expired_card',
  '20055': 'do_not_honor',
  '20056': 'invalid_card_number',
  '20057': 'transaction_not_permitted',
  '20058': 'transaction_not_permitted',
  '20059': 'suspected_fraud',
  '20060': 'do_not_honor',
  '20061': 'limit_exceeded',
  '20062': 'restricted_card',
  '20063': 'suspected_fraud',
  '20064': 'transaction_not_permitted',
  '20065': 'limit_exceeded',
  '20066': 'suspected_fraud',
  '20067': 'lost_or_stolen_card',
  '20068': 'issuer_unavailable',
  '20075': 'restricted_card',
  '20078': 'restricted_card',
  '20082': 'incorrect_cvv',
  '20083': 'do_not_honor',
  '20084': 'do_not_honor',
  '20085': 'do_not_honor',
  '20086': 'do_not_honor',
  '20087': 'incorrect_cvv',
  '20088': 'do_not_honor',
  '20089': 'do_not_honor',
  '20090': 'issuer_unavailable',
  '20091': 'issuer_unavailable',
  '20092': 'issuer_unavailable',
  '20093': 'transaction_not_permitted',
  '20094': 'duplicate_transaction',
  '20095': 'do_not_honor',
  '20096': 'issuer_unavailable',
  '20097': 'do_not_honor',
  '20098': 'issuer_unavailable',
  '20099': 'do_not_honor',
  '20100': 'expired_card',
  '20101': 'invalid_card_number',
  '20102': 'transaction_not_permitted',
  '20103': 'card_not_supported',
  '20104': 'transaction_not_permitted',
  '20105': 'transaction_not_permitted',
  '20106': 'do_not_honor',
  '20107': 'do_not_honor',
  '20108': 'transaction_not_permitted',
  '20109': 'do_not_honor',
  '20110': 'do_not_honor',
  '20111': 'do_not_honor',
  '20112': 'do_not_honor',
  '20113': 'do_not_honor',
  '20114': 'invalid_card_number',
  '20115': 'currency_not_supported',
  '20116': 'invalid_amount',
  '20117': 'do_not_honor',
  '20118': 'do_not_honor',
  '20119': 'do_not_honor',
  '20120': 'transaction_not_permitted',
  '20121': 'do_not_honor',
  '20123': 'transaction_not_permitted',
  '20124': 'do_not_honor',
  '20150': 'authentication_required',
  '20151': 'three_d_secure_authentication_failed',
  '20152': 'three_d_secure_authentication_failed',
  '20153': 'three_d_secure_authentication_failed',
  '20154': 'authentication_required',
  '20155': 'three_d_secure_authentication_failed',
  '20156': 'transaction_not_permitted',
  '20157': 'transaction_not_permitted',
  '20158': 'refund_declined',
  '20179': 'invalid_card_number',
  '20182': 'transaction_not_permitted',
  '20183': 'suspected_fraud',
  '200N0': 'do_not_honor',
  '200N7': 'incorrect_cvv',
  '200O5': 'do_not_honor',
  '200P1': 'limit_exceeded',
  '200P9': 'limit_exceeded',
  '200R1': 'transaction_not_permitted',
  '200R3': 'transaction_not_permitted',
  '200S4': 'do_not_honor',
  '200T2': 'transaction_not_permitted',
  '200T3': 'limit_exceeded',
  '30004': 'lost_or_stolen_card',
  '30007': 'lost_or_stolen_card',
  '30015': 'invalid_card_number',
  '30016': 'insufficient_funds',
  '30017': 'do_not_honor',
  '30018': 'do_not_honor',
  '30019': 'suspected_fraud',
  '30020': 'transaction_not_permitted',
  '30021': 'transaction_not_permitted',
  '30022': 'transaction_not_permitted',
  '30033': 'expired_card',
  '30034': 'suspected_fraud',
  '30035': 'do_not_honor',
  '30036': 'restricted_card',
  '30037': 'suspected_fraud',
  '30038': 'restricted_card',
  '30041': 'lost_or_stolen_card',
  '30043': 'lost_or_stolen_card',
  '30044': 'restricted_card',
  '30045': 'restricted_card',
  '30046': 'restricted_card',
  '40101': 'blocked_by_risk_rules',
  '40201': 'blocked_by_risk_rules',
  '40202': 'blocked_by_risk_rules',
  '40203': 'blocked_by_risk_rules',
  '40204': 'blocked_by_risk_rules',
  '40205': 'blocked_by_risk_rules',
};

/** Approval codes: anything else in a 201 answer with `approved: false` is a decline. */
export const APPROVED_CODES = new Set(['10000', '10100', '10200']);

/** A decline code → ours (`do_not_honor` when the table does not know it). */
export function declineCodeOf(code: string | null | undefined): StandardErrorCode {
  return (code && DECLINE_CODES[code]) || 'do_not_honor';
}

/**
 * `source.avs_check` (www.checkout.com/docs/developer-resources/codes/avs-codes): the Visa/Mastercard
 * letters. Unknown letters are `unavailable`.
 */
const AVS = {
  Y: 'match',
  X: 'match',
  D: 'match',
  F: 'match',
  M: 'match',
  A: 'partial_match_address',
  B: 'partial_match_address',
  Z: 'partial_match_postcode',
  W: 'partial_match_postcode',
  P: 'partial_match_postcode',
  N: 'no_match',
  C: 'no_match',
  U: 'unavailable',
  R: 'unavailable',
  S: 'unavailable',
  G: 'unavailable',
  I: 'unavailable',
  E: 'unavailable',
} as const satisfies Record<string, NonNullable<AuthorizeOutcome['avsResponseCode']>>;

/** `source.cvv_check` (www.checkout.com/docs/developer-resources/codes/cvv-codes). */
const CVV = {
  Y: 'match',
  M: 'match',
  N: 'no_match',
  X: 'not_provided',
  P: 'not_provided',
  U: 'unavailable',
  S: 'unavailable',
} as const satisfies Record<string, NonNullable<AuthorizeOutcome['cvvResponseCode']>>;

export function avsOf(value: unknown): AuthorizeOutcome['avsResponseCode'] {
  if (typeof value !== 'string' || value === '') return null;
  return inTable(AVS, value) ? AVS[value] : 'unavailable';
}

export function cvvOf(value: unknown): AuthorizeOutcome['cvvResponseCode'] {
  if (typeof value !== 'string' || value === '') return null;
  return inTable(CVV, value) ? CVV[value] : 'unavailable';
}

/** Checkout.com's error body (422 `request_invalid`, 409, ...). */
export interface CheckoutError {
  request_id?: string;
  error_type?: string;
  error_codes?: string[];
}

/**
 * A non-2xx answer as a `ConnectorError`: 401 (wrong key, no body) and 403 are our credentials;
 * 429 is Checkout.com asking us to slow down (nothing happened); 5xx (502 bad gateway) may come
 * after it acted: the outcome is unknown; any other 4xx is our request.
 */
export function httpError(status: number, body: unknown): ConnectorError {
  const error = (body && typeof body === 'object' ? body : {}) as CheckoutError;
  const raw = {
    code: error.error_codes?.[0] ?? error.error_type ?? String(status),
    description: error.error_type ?? `HTTP ${status}`,
  };
  if (status === 401 || status === 403)
    return new ConnectorError('invalid_request', `Checkout.com refused the secret key (HTTP ${status})`, raw);
  if (status === 429) return new ConnectorError('unavailable', 'Checkout.com rate-limited the request', raw);
  if (status >= 500)
    return new ConnectorError('timeout', `Checkout.com could not process the request (HTTP ${status})`, raw);
  return new ConnectorError('invalid_request', `Checkout.com refused the request (${raw.code})`, raw);
}

/**
 * 422 error codes that are the card's fault, not our request's: a decline with our code. Others
 * (a missing field, a bad key) stay `invalid_request`.
 */
export const CARD_ERRORS = {
  card_number_invalid: 'invalid_card_number',
  card_expired: 'expired_card',
  card_expiry_month_invalid: 'expired_card',
  card_expiry_year_invalid: 'expired_card',
  cvv_invalid: 'incorrect_cvv',
  card_not_eligible: 'card_not_supported',
  currency_not_supported: 'currency_not_supported',
  amount_invalid: 'invalid_amount',
} as const satisfies Record<string, StandardErrorCode>;

export function cardErrorOf(status: number, body: unknown): { errorCode: StandardErrorCode; rawCode: string } | null {
  if (status !== 422) return null;
  const codes = (body as CheckoutError | null)?.error_codes ?? [];
  const known = codes.find((code) => inTable(CARD_ERRORS, code));
  return known && inTable(CARD_ERRORS, known) ? { errorCode: CARD_ERRORS[known], rawCode: known } : null;
}
