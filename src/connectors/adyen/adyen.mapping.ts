import { ConnectorError, type AuthorizeOutcome } from '../connector.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * Adyen's answers in our terms: `resultCode` onto our authorization statuses, `refusalReasonCode`
 * onto the standardized `error_code` set (the raw code and reason are kept), AVS and CVC results
 * from `additionalData`, and HTTP errors onto outcomes or `ConnectorError`. Statuses are complete
 * tables the compiler checks (STYLE E4, `status-table.ts`): an Adyen value we do not know is never
 * an approval, nor a failure while Adyen may have charged the card.
 */

/**
 * Adyen Checkout `resultCode` values (API v71, docs.adyen.com/online-payments/build-your-integration/payment-result-codes;
 * the `ResultCodeEnum` of Adyen's API libraries). We call Adyen over plain HTTP, without its library.
 */
export type AdyenResultCode =
  | 'Authorised'
  | 'Refused'
  | 'Error'
  | 'Cancelled'
  | 'Pending'
  | 'Received'
  | 'RedirectShopper'
  | 'IdentifyShopper'
  | 'ChallengeShopper'
  | 'PresentToShopper'
  | 'AuthenticationFinished'
  | 'AuthenticationNotRequired'
  | 'PartiallyAuthorised';

export type AdyenPaymentStatus = AuthorizeOutcome['status'] | 'pending';

/** `approved`: authorized, or captured with intent capture (sent with captureDelayHours 0: Adyen books the capture itself). */
export const RESULT_CODE_STATUS = {
  Authorised: 'approved',
  Refused: 'declined',
  Cancelled: 'declined',
  RedirectShopper: 'buyer_approval_pending',
  IdentifyShopper: 'buyer_approval_pending',
  ChallengeShopper: 'buyer_approval_pending',
  PresentToShopper: 'buyer_approval_pending',
  Pending: 'pending',
  Received: 'pending',
  Error: 'failed',
  // Authentication-only results: we never ask for authentication alone, so no payment was made.
  AuthenticationFinished: 'failed',
  AuthenticationNotRequired: 'failed',
  // A partial authorization would leave the buyer short: we never request one, so it is a failure.
  PartiallyAuthorised: 'failed',
} as const satisfies Record<
  AdyenResultCode,
  Exclude<AdyenPaymentStatus, 'authorized' | 'captured' | 'capture_pending'> | 'approved'
>;

/**
 * Our status of a `/payments` or `/payments/details` answer. `pending`: not final at Adyen yet (its
 * webhook will tell). A `resultCode` missing or newer than this table is an unknown outcome
 * (`unknownStatus`): left to reconciliation, never read as a decline or a failure.
 */
export function paymentStatusOf(resultCode: string | undefined, intent: 'authorize' | 'capture'): AdyenPaymentStatus {
  if (!inTable(RESULT_CODE_STATUS, resultCode)) throw unknownStatus('Adyen', 'resultCode', resultCode ?? null);
  const status = RESULT_CODE_STATUS[resultCode];
  if (status !== 'approved') return status;
  return intent === 'capture' ? 'captured' : 'authorized';
}

/** Adyen refusal reason codes (docs.adyen.com/development-resources/refusal-reasons) → our standard error_code (error-codes.ts). */
const REFUSALS: Readonly<Record<string, StandardErrorCode>> = {
  '2': 'do_not_honor',
  '3': 'do_not_honor',
  '4': 'try_again_later',
  '5': 'restricted_card',
  '6': 'expired_card',
  '7': 'invalid_amount',
  '8': 'invalid_card_number',
  '9': 'issuer_unavailable',
  '10': 'card_not_supported',
  '11': 'three_d_secure_authentication_failed',
  '12': 'insufficient_funds',
  '14': 'suspected_fraud',
  '15': 'do_not_honor',
  '16': 'do_not_honor',
  '17': 'do_not_honor',
  '18': 'do_not_honor',
  '19': 'do_not_honor',
  '20': 'suspected_fraud',
  '21': 'try_again_later',
  '22': 'suspected_fraud',
  '23': 'transaction_not_permitted',
  '24': 'incorrect_cvv',
  '25': 'restricted_card',
  '26': 'do_not_honor',
  '27': 'do_not_honor',
  '28': 'limit_exceeded',
  '29': 'limit_exceeded',
  '31': 'suspected_fraud',
  '32': 'incorrect_address',
  '33': 'authentication_required',
  '34': 'transaction_not_permitted',
  '35': 'transaction_not_permitted',
  '36': 'authentication_required',
  '38': 'authentication_required',
  '39': 'three_d_secure_authentication_failed',
  '42': 'three_d_secure_authentication_failed',
  '43': 'authentication_required',
  '46': 'try_again_later',
};

/** Our error_code of a refusal; an unknown reason code is a generic decline. */
export function refusalErrorCode(refusalReasonCode: string | null | undefined, resultCode: string): StandardErrorCode {
  if (resultCode === 'Cancelled') return 'do_not_honor';
  if (resultCode === 'Error') return 'service_error';
  return (refusalReasonCode && REFUSALS[refusalReasonCode]) || 'do_not_honor';
}

type AvsCode = AuthorizeOutcome['avsResponseCode'];

/**
 * `additionalData.avsResult` codes we map (docs.adyen.com/risk-management/avs-checks), by their
 * leading number. A code not in the table (8 to 10, or one Adyen adds) reads as no AVS result
 * (`null`): the result is informational, and an unread one is never a match.
 */
const AVS_RESULTS: Readonly<Record<number, AvsCode>> = {
  7: 'match',
  20: 'match',
  24: 'match',
  2: 'no_match',
  11: 'no_match',
  26: 'no_match',
  1: 'partial_match_address',
  13: 'partial_match_address',
  19: 'partial_match_address',
  6: 'partial_match_postcode',
  12: 'partial_match_postcode',
  14: 'partial_match_postcode',
  21: 'partial_match_postcode',
  22: 'partial_match_postcode',
  23: 'partial_match_postcode',
  25: 'partial_match_postcode',
  0: 'unavailable',
  3: 'unavailable',
  4: 'unavailable',
  5: 'unavailable',
  15: 'unavailable',
  16: 'unavailable',
  17: 'unavailable',
  18: 'unavailable',
};

/** `additionalData.cvcResult` codes 0 to 6 (docs.adyen.com/risk-management/cvc-checks). */
export type AdyenCvcCode = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/** Complete over the documented codes; another code reads as no CVC result (`null`), never a match. */
const CVC_RESULTS = {
  0: 'unavailable',
  1: 'match',
  2: 'no_match',
  3: 'unavailable',
  4: 'not_provided',
  5: 'unavailable',
  6: 'not_provided',
} as const satisfies Record<AdyenCvcCode, AuthorizeOutcome['cvvResponseCode']>;

/** The leading number of a result such as "1 Matches"; NaN when there is none. */
const codeOf = (result: string | undefined) => (result ? Number.parseInt(result, 10) : Number.NaN);

/** `additionalData.avsResult`, e.g. "5 No AVS data provided" → our AVS code. */
export function avsOf(avsResult: string | undefined): AvsCode {
  const code = codeOf(avsResult);
  return Object.hasOwn(AVS_RESULTS, code) ? AVS_RESULTS[code]! : null;
}

/** `additionalData.cvcResult`, e.g. "1 Matches" → our CVV code. */
export function cvvOf(cvcResult: string | undefined): AuthorizeOutcome['cvvResponseCode'] {
  const code = codeOf(cvcResult);
  return Object.hasOwn(CVC_RESULTS, code) ? CVC_RESULTS[code as AdyenCvcCode] : null;
}

/** Adyen's error body (`ServiceError`). */
export interface AdyenServiceError {
  status?: number;
  errorCode?: string;
  message?: string;
  errorType?: string;
  pspReference?: string;
}

/** Adyen validation errors (HTTP 422) about the card itself: a decline of that card, not a bug of ours. */
const CARD_VALIDATION: Readonly<Record<string, StandardErrorCode>> = {
  '101': 'invalid_card_number',
  '102': 'card_not_supported',
  '103': 'incorrect_cvv',
  '129': 'expired_card',
};

/** The decline a 422 about the card stands for, or null when the 422 is about our request. */
export function cardValidationDecline(
  status: number,
  body: unknown,
): { errorCode: string; rawCode: string; rawDescription: string } | null {
  if (status !== 422) return null;
  const error = (body && typeof body === 'object' ? body : {}) as AdyenServiceError;
  const errorCode = error.errorCode ? CARD_VALIDATION[error.errorCode] : undefined;
  return errorCode ? { errorCode, rawCode: error.errorCode!, rawDescription: error.message ?? '' } : null;
}

/**
 * A non-2xx answer as a `ConnectorError`. 401/403: the credentials are wrong (`invalid_request`,
 * nothing was charged); 422: Adyen refused the request's content (validation; nothing charged);
 * 429: rate-limited before processing (`unavailable`); 5xx: Adyen may have acted before failing,
 * so the outcome is unknown (`timeout`): reconciliation asks again with the same idempotency key.
 */
export function httpError(status: number, body: unknown): ConnectorError {
  const error = (body && typeof body === 'object' ? body : {}) as AdyenServiceError;
  const raw = { code: error.errorCode ?? String(status), description: error.message ?? `HTTP ${status}` };
  if (status === 401 || status === 403)
    return new ConnectorError(
      'invalid_request',
      `Adyen refused the credentials (${raw.code}: ${raw.description})`,
      raw,
    );
  if (status === 429) return new ConnectorError('unavailable', 'Adyen rate-limited the request', raw);
  if (status >= 500)
    return new ConnectorError('timeout', `Adyen could not process the request (${raw.code}: ${raw.description})`, raw);
  return new ConnectorError('invalid_request', `Adyen refused the request (${raw.code}: ${raw.description})`, raw);
}
