/**
 * The standardized `error_code` values connectors map provider codes onto (the API's
 * `error_code` is free-form, set by us: these are the values we set). Each connector's mapping
 * file maps its provider's decline and error codes onto one of these and keeps the provider's
 * own code in `raw_response_code`; a code it does not know becomes `do_not_honor` for a decline
 * and `service_error` for a failure, never a guess.
 */
export const STANDARD_ERROR_CODES = [
  // Issuer declines.
  'do_not_honor',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvv',
  'invalid_card_number',
  'incorrect_address',
  'lost_or_stolen_card',
  'suspected_fraud',
  'restricted_card',
  'transaction_not_permitted',
  'limit_exceeded',
  'card_not_supported',
  'currency_not_supported',
  'invalid_amount',
  'duplicate_transaction',
  'try_again_later',
  'issuer_unavailable',
  'authentication_required',
  'three_d_secure_authentication_failed',
  'blocked_by_risk_rules',
  // The buyer: canceled at the provider's approval page (PayPal, a mandate or bank page).
  'buyer_declined',
  // Follow-up calls.
  'refund_declined',
  'capture_declined',
  'void_declined',
  'authorization_expired',
  // Technical.
  'service_error',
  'service_network_error',
  'invalid_credentials',
  'rate_limited',
] as const;

export type StandardErrorCode = (typeof STANDARD_ERROR_CODES)[number];
