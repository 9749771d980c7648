import type { CallFailure, CallSuccess } from '../../connectors/call.ts';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import { classifyAuthorization } from './outcome-class.ts';
import type { RoutingStats } from './stats-store.ts';

/** The circuit of a service as this process sees it (src/modules/circuit-breakers). */
interface CircuitStates {
  stateOf(merchantAccountId: string, paymentServiceId: string): 'closed' | 'open' | 'half_open';
}

/**
 * Counts one authorization's answer for its service's success rate (docs/routing.md,
 * "Success-rate routing"), in memory. An answer at a service whose circuit is not closed (a
 * half-open probe, or a service kept because it was the only eligible one) is the circuit
 * breaker's business and is not counted: an outage's probes must not weigh on the service once its
 * circuit closes.
 */
export function countAuthorization(
  stats: RoutingStats,
  circuits: CircuitStates,
  merchantAccountId: string,
  paymentServiceId: string,
  keys: readonly string[],
  result: CallSuccess<AuthorizeOutcome> | CallFailure,
): void {
  if (circuits.stateOf(merchantAccountId, paymentServiceId) !== 'closed') return;
  stats.record(merchantAccountId, paymentServiceId, keys, classifyAuthorization(result));
}
