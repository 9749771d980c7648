import type { CallFailure, CallSuccess } from '../../connectors/call.ts';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';

/**
 * What one authorization call says about its payment service's health (docs/routing.md,
 * "Elimination: the circuit breaker"): a technical failure (`failure`), an answer (`success`), or
 * nothing (null).
 *
 * - failure: no answer in time or an unexpected error (`timeout`), the service could not be
 *   reached (`unavailable`), or an answer `failed` with a service error (`service_error`,
 *   `service_network_error`, any `service_*` code, or none);
 * - success: any other answer, declines included: a decline is the card's or the issuer's
 *   verdict, the service worked;
 * - null: the service refused the request as invalid (`invalid_request`: our request, not its
 *   health), or `failed` with a code that is not a service error.
 */
export function healthOf(result: CallSuccess<AuthorizeOutcome> | CallFailure): 'success' | 'failure' | null {
  if (!result.ok) return result.kind === 'invalid_request' ? null : 'failure';
  const answer = result.value;
  if (answer.status !== 'failed') return 'success';
  const code = answer.errorCode;
  return code === null || code.startsWith('service_') ? 'failure' : null;
}
