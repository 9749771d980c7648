import { ConnectorError, type AuthorizeOutcome } from '../connector.ts';
import type { StandardErrorCode } from '../error-codes.ts';

/**
 * Adyen's answers in our terms: `resultCode` onto our authorization statuses, `refusalReasonCode`
 * onto the standardized `error_code` set (the raw code and reason are kept), AVS and CVC results
 * from `additionalData`, and HTTP errors onto outcomes or `ConnectorError`. Exhaustive switches:
 * an Adyen value we do not know maps to a failure, never to an approval.
 */

/** Adyen Checkout `resultCode` values (API v71). */
export type AdyenResultCode =
  | 'Authorised' | 'Refused' | 'Error' | 'Cancelled' | 'Pending' | 'Received' | 'RedirectShopper' | 'IdentifyShopper'
  | 'ChallengeShopper' | 'PresentToShopper' | 'AuthenticationFinished' | 'AuthenticationNotRequired' | 'PartiallyAuthorised';

export type AdyenPaymentStatus = AuthorizeOutcome['status'] | 'pending';

/** Our status of a `/payments` or `/payments/details` answer. `pending`: not final at Adyen yet (its webhook will tell). */
export function paymentStatusOf(resultCode: string, intent: 'authorize' | 'capture'): AdyenPaymentStatus {
  switch (resultCode as AdyenResultCode) {
    // With intent capture the payment is sent with captureDelayHours 0: Adyen books the capture itself.
    case 'Authorised':
      return intent === 'capture' ? 'captured' : 'authorized';
    case 'Refused':
    case 'Cancelled':
      return 'declined';
    case 'RedirectShopper':
    case 'IdentifyShopper':
    case 'ChallengeShopper':
    case 'PresentToShopper':
      return 'buyer_approval_pending';
    case 'Pending':
    case 'Received':
      return 'pending';
    case 'Error':
    case 'AuthenticationFinished':
    case 'AuthenticationNotRequired':
    // A partial authorization would leave the buyer short: we never request one, so it is a failure.
    case 'PartiallyAuthorised':
      return 'failed';
    default:
      return 'failed';
  }
}

/** Adyen refusal reason codes (docs.adyen.com/development-resources/refusal-reasons) → our standard error_code (error-codes.ts). */
const REFUSALS: Readonly<Record<string, StandardErrorCode>> = {
  '2': 'do_not_honor', '3': 'do_not_honor', '4': 'try_again_later', '5': 'restricted_card', '6': 'expired_card',
  '7': 'invalid_amount', '8': 'invalid_card_number', '9': 'issuer_unavailable', '10': 'card_not_supported', '11': 'three_d_secure_authentication_failed',
  '12': 'insufficient_funds', '14': 'suspected_fraud', '15': 'do_not_honor', '16': 'do_not_honor', '17': 'do_not_honor',
  '18': 'do_not_honor', '19': 'do_not_honor', '20': 'suspected_fraud', '21': 'try_again_later', '22': 'suspected_fraud',
  '23': 'transaction_not_permitted', '24': 'incorrect_cvv', '25': 'restricted_card', '26': 'do_not_honor', '27': 'do_not_honor',
  '28': 'limit_exceeded', '29': 'limit_exceeded', '31': 'suspected_fraud', '32': 'incorrect_address', '33': 'authentication_required',
  '34': 'transaction_not_permitted', '35': 'transaction_not_permitted', '36': 'authentication_required', '38': 'authentication_required', '39': 'three_d_secure_authentication_failed',
  '42': 'three_d_secure_authentication_failed', '43': 'authentication_required', '46': 'try_again_later',
};

/** Our error_code of a refusal; an unknown reason code is a generic decline. */
export function refusalErrorCode(refusalReasonCode: string | null | undefined, resultCode: string): StandardErrorCode {
  if (resultCode === 'Cancelled') return 'do_not_honor';
  if (resultCode === 'Error') return 'service_error';
  return (refusalReasonCode && REFUSALS[refusalReasonCode]) || 'do_not_honor';
}

/** `additionalData.avsResult`, e.g. "5 No AVS data provided" → our AVS code. */
export function avsOf(avsResult: string | undefined): AuthorizeOutcome['avsResponseCode'] {
  const code = avsResult ? Number.parseInt(avsResult, 10) : Number.NaN;
  switch (code) {
    case 7: case 20: case 24:
      return 'match';
    case 2: case 11: case 26:
      return 'no_match';
    case 1: case 13: case 19:
      return 'partial_match_address';
    case 6: case 12: case 14: case 21: case 22: case 23: case 25:
      return 'partial_match_postcode';
    case 0: case 3: case 4: case 5: case 15: case 16: case 17: case 18:
      return 'unavailable';
    default:
      return null;
  }
}

/** `additionalData.cvcResult`, e.g. "1 Matches" → our CVV code. */
export function cvvOf(cvcResult: string | undefined): AuthorizeOutcome['cvvResponseCode'] {
  const code = cvcResult ? Number.parseInt(cvcResult, 10) : Number.NaN;
  switch (code) {
    case 1:
      return 'match';
    case 2:
      return 'no_match';
    case 4: case 6:
      return 'not_provided';
    case 0: case 3: case 5:
      return 'unavailable';
    default:
      return null;
  }
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
const CARD_VALIDATION: Readonly<Record<string, StandardErrorCode>> = { '101': 'invalid_card_number', '102': 'card_not_supported', '103': 'incorrect_cvv', '129': 'expired_card' };

/** The decline a 422 about the card stands for, or null when the 422 is about our request. */
export function cardValidationDecline(status: number, body: unknown): { errorCode: string; rawCode: string; rawDescription: string } | null {
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
  if (status === 401 || status === 403) return new ConnectorError('invalid_request', `Adyen refused the credentials (${raw.code}: ${raw.description})`, raw);
  if (status === 429) return new ConnectorError('unavailable', 'Adyen rate-limited the request', raw);
  if (status >= 500) return new ConnectorError('timeout', `Adyen could not process the request (${raw.code}: ${raw.description})`, raw);
  return new ConnectorError('invalid_request', `Adyen refused the request (${raw.code}: ${raw.description})`, raw);
}
