import type { StandardErrorCode } from '../error-codes.ts';
import type { AuthorizeOutcome, RefundOutcome, SyncOutcome } from '../connector.ts';
import type { Stripe } from './stripe.client.ts';

/**
 * Stripe's statuses and codes onto ours, as exhaustive switches (STYLE C3). The raw code stays in
 * `raw_response_code`; an unknown code maps to the safe default, never to a guess.
 */

/** Stripe decline codes (https://docs.stripe.com/declines/codes) and error codes onto ours. */
const DECLINE_CODES: Record<string, StandardErrorCode> = {
  insufficient_funds: 'insufficient_funds', card_velocity_exceeded: 'limit_exceeded', withdrawal_count_limit_exceeded: 'limit_exceeded',
  expired_card: 'expired_card', incorrect_cvc: 'incorrect_cvv', invalid_cvc: 'incorrect_cvv',
  incorrect_number: 'invalid_card_number', invalid_number: 'invalid_card_number', invalid_account: 'invalid_card_number',
  incorrect_zip: 'incorrect_address', lost_card: 'lost_or_stolen_card', stolen_card: 'lost_or_stolen_card', pickup_card: 'lost_or_stolen_card',
  fraudulent: 'suspected_fraud', merchant_blacklist: 'blocked_by_risk_rules', restricted_card: 'restricted_card', security_violation: 'restricted_card',
  transaction_not_allowed: 'transaction_not_permitted', not_permitted: 'transaction_not_permitted', service_not_allowed: 'transaction_not_permitted',
  card_not_supported: 'card_not_supported', currency_not_supported: 'currency_not_supported', invalid_amount: 'invalid_amount',
  duplicate_transaction: 'duplicate_transaction', try_again_later: 'try_again_later', issuer_not_available: 'issuer_unavailable',
  processing_error: 'service_error', reenter_transaction: 'try_again_later', authentication_required: 'authentication_required',
  approve_with_id: 'try_again_later', call_issuer: 'do_not_honor', do_not_honor: 'do_not_honor', do_not_try_again: 'do_not_honor',
  generic_decline: 'do_not_honor', no_action_taken: 'do_not_honor', revocation_of_authorization: 'do_not_honor', stop_payment_order: 'do_not_honor',
  payment_intent_authentication_failure: 'three_d_secure_authentication_failed', card_declined: 'do_not_honor',
};

/** Our error code of a Stripe decline: the issuer's decline code first, then Stripe's error code. */
export function errorCodeOf(declineCode: string | null | undefined, code: string | null | undefined): StandardErrorCode {
  return DECLINE_CODES[declineCode ?? ''] ?? DECLINE_CODES[code ?? ''] ?? 'do_not_honor';
}

type Check = string | null | undefined;

/** Stripe's `cvc_check` onto ours. */
export function cvvOf(check: Check): AuthorizeOutcome['cvvResponseCode'] {
  switch (check) {
    case 'pass': return 'match';
    case 'fail': return 'no_match';
    case 'unavailable': return 'unavailable';
    case 'unchecked': case null: case undefined: return 'not_provided';
    default: return 'unavailable';
  }
}

/** Stripe's `address_line1_check` and `address_postal_code_check` onto our AVS result. */
export function avsOf(line1: Check, postal: Check): AuthorizeOutcome['avsResponseCode'] {
  if (line1 === 'pass' && postal === 'pass') return 'match';
  if (line1 === 'pass' && postal === 'fail') return 'partial_match_address';
  if (postal === 'pass' && line1 === 'fail') return 'partial_match_postcode';
  if (line1 === 'pass' || postal === 'pass') return line1 === 'pass' ? 'partial_match_address' : 'partial_match_postcode';
  if (line1 === 'fail' || postal === 'fail') return 'no_match';
  return line1 || postal ? 'unavailable' : null;
}

/** A PaymentIntent's status onto an authorization outcome status; `null`: still processing. */
export function authorizeStatusOf(intent: Pick<Stripe.PaymentIntent, 'status' | 'amount_capturable'>): AuthorizeOutcome['status'] | null {
  switch (intent.status) {
    case 'requires_capture': return 'authorized';
    case 'succeeded': return 'captured';
    case 'requires_action': return 'buyer_approval_pending';
    case 'requires_payment_method': return 'declined';
    case 'canceled': return 'failed';
    case 'processing': return null;
    case 'requires_confirmation': return 'failed';
    default: return 'failed';
  }
}

/** A PaymentIntent's status as a status query answer. */
export function syncStatusOf(intent: Stripe.PaymentIntent): SyncOutcome['status'] {
  switch (intent.status) {
    case 'requires_capture': return 'authorized';
    case 'succeeded': return 'captured';
    case 'requires_action': return 'buyer_approval_pending';
    case 'requires_payment_method': return 'declined';
    case 'canceled': return 'voided';
    case 'processing': return 'capture_pending';
    default: return 'failed';
  }
}

/** A Refund's status onto ours (https://docs.stripe.com/api/refunds/object#refund_object-status). */
export function refundStatusOf(status: string | null): RefundOutcome['status'] {
  switch (status) {
    case 'succeeded': return 'succeeded';
    case 'pending': case 'requires_action': return 'processing';
    case 'failed': case 'canceled': return 'failed';
    default: return 'processing';
  }
}
