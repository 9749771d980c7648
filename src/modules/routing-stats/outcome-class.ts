import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import type { CallFailure, CallSuccess } from '../../connectors/call.ts';
import { HARD_DECLINES } from '../flows/flow-decisions.ts';

/**
 * How one authorization answer counts for its payment service's success rate
 * (docs/routing.md, "Success-rate routing"): `success`, `decline` (the service answered and did
 * not approve), `error` (it did not answer: a technical failure), or null (not counted).
 *
 * A decline caused by the card or the buyer would be the same at any service, so it says nothing
 * about the service and is not counted: hard declines, insufficient funds, wrong details, limits,
 * a card that needs authentication (step-up's business, not the service's), failed 3DS.
 * Everything else that is not an approval counts against the service: soft declines
 * (`do_not_honor`, `issuer_unavailable`, `try_again_later`, `processing_error`, unknown codes),
 * which another acquirer often turns into approvals, against its approval rate; technical
 * failures, a call refused as invalid, timeouts and unknown outcomes against its availability
 * (counted over a short window: an outage is the circuit breaker's, and once over it must not
 * weigh on the service for the whole window). A pending buyer approval is not an outcome yet.
 */
export type OutcomeClass = 'success' | 'decline' | 'error';

/** Declines the card or the buyer caused: never counted. */
export const CARD_CAUSED_DECLINES: ReadonlySet<string> = new Set<string>([
  ...HARD_DECLINES,
  'insufficient_funds',
  'lost_or_stolen_card',
  'incorrect_address',
  'limit_exceeded',
  'transaction_not_permitted',
  'card_not_supported',
  'invalid_amount',
  'duplicate_transaction',
  'three_d_secure_authentication_failed',
  'buyer_declined',
]);

export function classifyAuthorization(result: CallSuccess<AuthorizeOutcome> | CallFailure): OutcomeClass | null {
  if (!result.ok) return 'error';
  switch (result.value.status) {
    case 'authorized':
    case 'captured':
    case 'capture_pending':
      return 'success';
    case 'buyer_approval_pending':
      return null;
    case 'failed':
      return 'error';
    case 'declined':
      return CARD_CAUSED_DECLINES.has(result.value.errorCode ?? '') ? null : 'decline';
  }
}
