import type { StandardErrorCode } from '../error-codes.ts';
import type { AuthorizeOutcome, RefundOutcome, SyncOutcome } from '../connector.ts';
import type { Stripe } from './stripe.client.ts';
import { inTable, unknownStatus, type KnownValues } from '../status-table.ts';

/**
 * Stripe's statuses and codes onto ours: statuses as complete tables the compiler checks (STYLE E4,
 * `status-table.ts`), decline codes as a lookup whose unknown code is a generic decline. The raw
 * code stays in `raw_response_code`; an unknown value maps to the safe outcome, never to a guess.
 */

/** Stripe decline codes (https://docs.stripe.com/declines/codes) and error codes onto ours. */
const DECLINE_CODES: Record<string, StandardErrorCode> = {
  insufficient_funds: 'insufficient_funds',
  card_velocity_exceeded: 'limit_exceeded',
  withdrawal_count_limit_exceeded: 'limit_exceeded',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvv',
  invalid_cvc: 'incorrect_cvv',
  incorrect_number: 'invalid_card_number',
  invalid_number: 'invalid_card_number',
  invalid_account: 'invalid_card_number',
  incorrect_zip: 'incorrect_address',
  lost_card: 'lost_or_stolen_card',
  stolen_card: 'lost_or_stolen_card',
  pickup_card: 'lost_or_stolen_card',
  fraudulent: 'suspected_fraud',
  merchant_blacklist: 'blocked_by_risk_rules',
  restricted_card: 'restricted_card',
  security_violation: 'restricted_card',
  transaction_not_allowed: 'transaction_not_permitted',
  not_permitted: 'transaction_not_permitted',
  service_not_allowed: 'transaction_not_permitted',
  card_not_supported: 'card_not_supported',
  currency_not_supported: 'currency_not_supported',
  invalid_amount: 'invalid_amount',
  duplicate_transaction: 'duplicate_transaction',
  try_again_later: 'try_again_later',
  issuer_not_available: 'issuer_unavailable',
  processing_error: 'service_error',
  reenter_transaction: 'try_again_later',
  authentication_required: 'authentication_required',
  approve_with_id: 'try_again_later',
  call_issuer: 'do_not_honor',
  do_not_honor: 'do_not_honor',
  do_not_try_again: 'do_not_honor',
  generic_decline: 'do_not_honor',
  no_action_taken: 'do_not_honor',
  revocation_of_authorization: 'do_not_honor',
  stop_payment_order: 'do_not_honor',
  payment_intent_authentication_failure: 'three_d_secure_authentication_failed',
  card_declined: 'do_not_honor',
};

/** Our error code of a Stripe decline: the issuer's decline code first, then Stripe's error code. */
export function errorCodeOf(
  declineCode: string | null | undefined,
  code: string | null | undefined,
): StandardErrorCode {
  return DECLINE_CODES[declineCode ?? ''] ?? DECLINE_CODES[code ?? ''] ?? 'do_not_honor';
}

type Check = string | null | undefined;

/** Stripe's `cvc_check` values (docs.stripe.com/api/charges/object, `payment_method_details.card.checks`; typed `string` by the package). */
export type StripeCheck = 'pass' | 'fail' | 'unavailable' | 'unchecked';

const CVV_OF = {
  pass: 'match',
  fail: 'no_match',
  unavailable: 'unavailable',
  unchecked: 'not_provided',
} as const satisfies Record<StripeCheck, AuthorizeOutcome['cvvResponseCode']>;

/** Stripe's `cvc_check` onto ours. A result we do not know is `unavailable`: informational, never a match. */
export function cvvOf(check: Check): AuthorizeOutcome['cvvResponseCode'] {
  if (check === null || check === undefined) return 'not_provided';
  return inTable(CVV_OF, check) ? CVV_OF[check] : 'unavailable';
}

/** Stripe's `address_line1_check` and `address_postal_code_check` onto our AVS result. */
export function avsOf(line1: Check, postal: Check): AuthorizeOutcome['avsResponseCode'] {
  if (line1 === 'pass' && postal === 'pass') return 'match';
  if (line1 === 'pass' && postal === 'fail') return 'partial_match_address';
  if (postal === 'pass' && line1 === 'fail') return 'partial_match_postcode';
  if (line1 === 'pass' || postal === 'pass')
    return line1 === 'pass' ? 'partial_match_address' : 'partial_match_postcode';
  if (line1 === 'fail' || postal === 'fail') return 'no_match';
  return line1 || postal ? 'unavailable' : null;
}

/** Stripe's PaymentIntent statuses, from the `stripe` package's own type (its open `string` member left out). */
export type StripeIntentStatus = KnownValues<Stripe.PaymentIntent.Status>;

/** A PaymentIntent's status as an authorization outcome; `null`: still processing (a capture pending at Stripe). */
export const AUTHORIZE_STATUS = {
  requires_capture: 'authorized',
  succeeded: 'captured',
  requires_action: 'buyer_approval_pending',
  requires_payment_method: 'declined',
  // We confirm on creation: an intent still waiting for confirmation or canceled did not pay.
  requires_confirmation: 'failed',
  canceled: 'failed',
  processing: null,
} as const satisfies Record<StripeIntentStatus, AuthorizeOutcome['status'] | null>;

/** A PaymentIntent's status as a status query answer. */
export const SYNC_STATUS = {
  requires_capture: 'authorized',
  succeeded: 'captured',
  requires_action: 'buyer_approval_pending',
  requires_payment_method: 'declined',
  requires_confirmation: 'failed',
  canceled: 'voided',
  processing: 'capture_pending',
} as const satisfies Record<StripeIntentStatus, SyncOutcome['status']>;

/**
 * A PaymentIntent's status onto an authorization outcome status; `null`: still processing. A
 * status newer than the package's types is an unknown outcome (`unknownStatus`): the payment is
 * left to reconciliation, never marked failed while Stripe may have charged the card.
 */
export function authorizeStatusOf(intent: Pick<Stripe.PaymentIntent, 'status'>): AuthorizeOutcome['status'] | null {
  if (!inTable(AUTHORIZE_STATUS, intent.status)) throw unknownStatus('Stripe', 'PaymentIntent status', intent.status);
  return AUTHORIZE_STATUS[intent.status];
}

/** A PaymentIntent's status as a status query answer; an unknown one: as `authorizeStatusOf` (asked again later). */
export function syncStatusOf(intent: Pick<Stripe.PaymentIntent, 'status'>): SyncOutcome['status'] {
  if (!inTable(SYNC_STATUS, intent.status)) throw unknownStatus('Stripe', 'PaymentIntent status', intent.status);
  return SYNC_STATUS[intent.status];
}

/**
 * Stripe's Refund statuses (docs.stripe.com/api/refunds/object#refund_object-status; the package
 * types `Refund.status` as `string | null` and lists these values in its documentation comment).
 */
export type StripeRefundStatus = 'pending' | 'requires_action' | 'succeeded' | 'failed' | 'canceled';

export const REFUND_STATUS = {
  succeeded: 'succeeded',
  pending: 'processing',
  requires_action: 'processing',
  failed: 'failed',
  canceled: 'failed',
} as const satisfies Record<StripeRefundStatus, RefundOutcome['status']>;

/**
 * A Refund's status onto ours. No status yet (`null`) is a refund in progress; a status newer
 * than this table is an unknown outcome (`unknownStatus`), left to reconciliation rather than
 * reported failed while Stripe may be paying it back.
 */
export function refundStatusOf(status: string | null): RefundOutcome['status'] {
  if (status === null) return 'processing';
  if (!inTable(REFUND_STATUS, status)) throw unknownStatus('Stripe', 'Refund status', status);
  return REFUND_STATUS[status];
}
