import { ConnectorError, type AuthorizeOutcome, type ResponseFacts, type SyncOutcome } from '../connector.ts';
import type { GraphQlAnswer, GraphQlError } from './braintree.client.ts';
import type { StandardErrorCode } from '../error-codes.ts';
import { inTable, unknownStatus } from '../status-table.ts';

/**
 * Braintree's answers in our terms: the `PaymentStatus` of a transaction, processor response codes
 * (`legacyCode`, developer.paypal.com/braintree/docs/reference/general/processor-responses) and
 * gateway rejection reasons onto the standardized `error_code` set (raw code and text kept), AVS
 * and CVV results, and GraphQL error classes onto `ConnectorError`. Statuses are complete tables
 * the compiler checks (STYLE E4, `status-table.ts`): an unknown value is never an approval, nor a
 * failure while Braintree may have charged the card.
 */

/**
 * The GraphQL API's `PaymentStatus` enum (developer.paypal.com/braintree/graphql/reference/types/payment-status).
 * We call the GraphQL API over plain HTTP: no Braintree library types these values.
 */
export type BraintreeStatus =
  | 'AUTHORIZATION_EXPIRED'
  | 'AUTHORIZED'
  | 'AUTHORIZING'
  | 'FAILED'
  | 'GATEWAY_REJECTED'
  | 'PROCESSOR_DECLINED'
  | 'SETTLED'
  | 'SETTLEMENT_CONFIRMED'
  | 'SETTLEMENT_DECLINED'
  | 'SETTLEMENT_PENDING'
  | 'SETTLING'
  | 'SUBMITTED_FOR_SETTLEMENT'
  | 'VOIDED';

/** What a transaction's status means to us. `pending`: Braintree has not decided (AUTHORIZING). */
export const PAYMENT_STATUS = {
  AUTHORIZED: 'authorized',
  // Submitted for settlement is our capture: Braintree settles it in its nightly batch.
  SUBMITTED_FOR_SETTLEMENT: 'captured',
  SETTLING: 'captured',
  SETTLEMENT_PENDING: 'captured',
  SETTLED: 'captured',
  SETTLEMENT_CONFIRMED: 'captured',
  VOIDED: 'voided',
  PROCESSOR_DECLINED: 'declined',
  GATEWAY_REJECTED: 'declined',
  SETTLEMENT_DECLINED: 'declined',
  AUTHORIZING: 'pending',
  FAILED: 'failed',
  AUTHORIZATION_EXPIRED: 'failed',
} as const satisfies Record<BraintreeStatus, SyncOutcome['status']>;

/**
 * A transaction's (or refund's) status in our terms. A status newer than this table is an unknown
 * outcome (`unknownStatus`): left to reconciliation, which asks Braintree again.
 */
export function syncStatusOf(status: string): SyncOutcome['status'] {
  if (!inTable(PAYMENT_STATUS, status)) throw unknownStatus('Braintree', 'PaymentStatus', status);
  return PAYMENT_STATUS[status];
}

/** Processor response codes (`legacyCode`) → our standard error_code (error-codes.ts). */
const PROCESSOR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '2000': 'do_not_honor',
  '2001': 'insufficient_funds',
  '2002': 'limit_exceeded',
  '2003': 'limit_exceeded',
  '2004': 'expired_card',
  '2005': 'invalid_card_number',
  '2006': 'expired_card',
  '2007': 'transaction_not_permitted',
  '2008': 'invalid_card_number',
  '2009': 'invalid_card_number',
  '2010': 'incorrect_cvv',
  '2011': 'do_not_honor',
  '2012': 'lost_or_stolen_card',
  '2013': 'lost_or_stolen_card',
  '2014': 'suspected_fraud',
  '2015': 'transaction_not_permitted',
  '2016': 'duplicate_transaction',
  '2017': 'do_not_honor',
  '2019': 'transaction_not_permitted',
  '2038': 'do_not_honor',
  '2044': 'do_not_honor',
  '2046': 'do_not_honor',
  '2047': 'lost_or_stolen_card',
  '2053': 'lost_or_stolen_card',
  '2057': 'restricted_card',
  '2059': 'incorrect_address',
  '2060': 'incorrect_cvv',
  '2099': 'authentication_required',
  '3000': 'issuer_unavailable',
};

/** Gateway rejection reasons (Braintree's own risk and duplicate rules). */
const REJECTIONS: Readonly<Record<string, StandardErrorCode>> = {
  AVS: 'incorrect_address',
  CVV: 'incorrect_cvv',
  AVS_AND_CVV: 'incorrect_cvv',
  FRAUD: 'blocked_by_risk_rules',
  RISK_THRESHOLD: 'blocked_by_risk_rules',
  DUPLICATE: 'duplicate_transaction',
  THREE_D_SECURE: 'authentication_required',
  EXCESSIVE_RETRY: 'try_again_later',
  APPLICATION_INCOMPLETE: 'service_error',
  TOKEN_ISSUANCE: 'service_error',
};

export function processorErrorCode(legacyCode: string | null | undefined): StandardErrorCode {
  return (
    (legacyCode && PROCESSOR_CODES[legacyCode]) || (legacyCode?.startsWith('3') ? 'issuer_unavailable' : 'do_not_honor')
  );
}

export function rejectionErrorCode(reason: string | null | undefined): StandardErrorCode {
  return (reason && REJECTIONS[reason]) || 'do_not_honor';
}

export function avsOf(
  postal: string | null | undefined,
  street: string | null | undefined,
): AuthorizeOutcome['avsResponseCode'] {
  if (!postal && !street) return null;
  const p = postal === 'MATCHES';
  const s = street === 'MATCHES';
  if (p && s) return 'match';
  if (p) return 'partial_match_postcode';
  if (s) return 'partial_match_address';
  if (postal === 'DOES_NOT_MATCH' && street === 'DOES_NOT_MATCH') return 'no_match';
  return 'unavailable';
}

/** The GraphQL API's `AvsCvvResponseCode` enum (developer.paypal.com/braintree/graphql/reference/types/avs-cvv-response-code). */
export type BraintreeAvsCvvCode =
  | 'BYPASS'
  | 'DOES_NOT_MATCH'
  | 'ISSUER_DOES_NOT_PARTICIPATE'
  | 'MATCHES'
  | 'NOT_APPLICABLE'
  | 'NOT_PROVIDED'
  | 'NOT_VERIFIED'
  | 'SYSTEM_ERROR';

const CVV_RESULTS = {
  MATCHES: 'match',
  DOES_NOT_MATCH: 'no_match',
  NOT_PROVIDED: 'not_provided',
  BYPASS: 'unavailable',
  ISSUER_DOES_NOT_PARTICIPATE: 'unavailable',
  NOT_APPLICABLE: 'unavailable',
  NOT_VERIFIED: 'unavailable',
  SYSTEM_ERROR: 'unavailable',
} as const satisfies Record<BraintreeAvsCvvCode, AuthorizeOutcome['cvvResponseCode']>;

/** A CVV result in our terms; one newer than the table is `unavailable` (informational, never a match). */
export function cvvOf(cvv: string | null | undefined): AuthorizeOutcome['cvvResponseCode'] {
  if (cvv === null || cvv === undefined) return null;
  return inTable(CVV_RESULTS, cvv) ? CVV_RESULTS[cvv] : 'unavailable';
}

/** Card validation errors (class VALIDATION) that are a refusal of this card, not a bug of ours. */
const CARD_VALIDATION: Readonly<Record<string, StandardErrorCode>> = {
  '81715': 'invalid_card_number',
  '81716': 'invalid_card_number',
  '81703': 'card_not_supported',
  '81736': 'incorrect_cvv',
  '81707': 'incorrect_cvv',
  '81709': 'expired_card',
  '81710': 'expired_card',
  '81712': 'expired_card',
  '81713': 'expired_card',
};

/** A refusal carried by GraphQL errors alone (no transaction object): a processor or card-validation decline. */
export function declineOfErrors(errors: GraphQlError[]): ResponseFacts | null {
  for (const error of errors) {
    const code = error.extensions?.legacyCode;
    if (error.extensions?.errorClass !== 'VALIDATION' || !code) continue;
    if (/^[23]\d{3}$/.test(code))
      return {
        errorCode: processorErrorCode(code),
        rawResponseCode: code,
        rawResponseDescription: error.message ?? null,
      };
    if (CARD_VALIDATION[code])
      return {
        errorCode: CARD_VALIDATION[code]!,
        rawResponseCode: code,
        rawResponseDescription: error.message ?? null,
      };
  }
  return null;
}

/**
 * GraphQL errors (or an HTTP error status) as a `ConnectorError`. Authentication and validation:
 * `invalid_request` (nothing happened); rate limits and maintenance: `unavailable`; internal
 * errors and 5xx: the outcome is unknown (`timeout`), Braintree may have acted.
 */
export function graphQlError(status: number, errors: GraphQlError[]): ConnectorError {
  const first = errors[0];
  const errorClass =
    first?.extensions?.errorClass ??
    (status === 401 ? 'AUTHENTICATION' : status === 429 ? 'RESOURCE_LIMIT' : status >= 500 ? 'INTERNAL' : 'VALIDATION');
  const raw = { code: first?.extensions?.legacyCode ?? errorClass, description: first?.message ?? `HTTP ${status}` };
  switch (errorClass) {
    case 'AUTHENTICATION':
    case 'AUTHORIZATION':
      return new ConnectorError('invalid_request', `Braintree refused the credentials (${raw.description})`, raw);
    case 'RESOURCE_LIMIT':
    case 'SERVICE_AVAILABILITY':
      return new ConnectorError('unavailable', `Braintree did not take the request (${raw.description})`, raw);
    case 'INTERNAL':
      return new ConnectorError(
        'timeout',
        `Braintree failed while processing; the outcome is unknown (${raw.description})`,
        raw,
      );
    default:
      return new ConnectorError(
        'invalid_request',
        `Braintree refused the request (${raw.code}: ${raw.description})`,
        raw,
      );
  }
}

/**
 * `data[field]` of a successful answer, or a decline (errors only), or the `ConnectorError`. For a
 * capture, void or refund (`modification`), any validation error is Braintree refusing that
 * modification (e.g. 91506: not settled yet; 91522: more than authorized): a decline with its code.
 */
export function dataOf<T>(
  answer: GraphQlAnswer<Record<string, T | null>>,
  field: string,
  modification = false,
): T | ResponseFacts {
  const value = answer.data?.[field];
  if (value && answer.status >= 200 && answer.status < 300) return value;
  const decline = declineOfErrors(answer.errors);
  if (decline) return decline;
  const refusal = answer.errors.find((e) => e.extensions?.errorClass === 'VALIDATION');
  if (modification && refusal)
    return {
      errorCode: 'do_not_honor',
      rawResponseCode: refusal.extensions?.legacyCode ?? 'VALIDATION',
      rawResponseDescription: refusal.message ?? null,
    };
  throw graphQlError(answer.status, answer.errors);
}

export const isFacts = (value: unknown): value is ResponseFacts =>
  typeof value === 'object' && value !== null && 'errorCode' in value;
