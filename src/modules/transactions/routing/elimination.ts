/**
 * Elimination (docs/routing.md, "Elimination: the circuit breaker"): after routing found the
 * eligible services, those whose circuit is open are skipped (`circuit_open`), and those whose
 * circuit is half-open are skipped (`circuit_half_open`) but for the bounded share of decisions
 * that probe them. Never all of them: when no eligible service has a closed or probing circuit,
 * every eligible one is kept, in its order, and the trace names them (`circuit_open_kept`), so a
 * merchant with one service is never refused by our breaker, only by the service itself. Pure: the
 * circuits' states come from `BreakerView` (modules/circuit-breakers, a per-process cache).
 */

/**
 * A service's circuit as one routing decision sees it: `probe` is a half-open circuit this
 * decision probes (the view counts the decisions to bound the probes).
 */
export type BreakerVerdict = 'closed' | 'open' | 'half_open' | 'probe';

export interface BreakerView {
  verdict(paymentServiceId: string): BreakerVerdict;
}

export const CIRCUIT_OPEN = 'circuit_open';
export const CIRCUIT_HALF_OPEN = 'circuit_half_open';

/** The part of the routing trace elimination reads and writes. */
export interface EliminationTrace {
  eligible: string[];
  skipped: Array<{ payment_service_id: string; reason: string }>;
  /** Eligible services kept although their circuit is open: no other eligible service had a closed one. */
  circuit_open_kept?: string[];
  /** Half-open services this decision sends a probe. */
  circuit_probes?: string[];
}

/** Removes the tripped services from `trace.eligible` (in place) unless that would leave none. */
export function eliminate(trace: EliminationTrace, view: BreakerView): void {
  const verdicts = trace.eligible.map((id) => ({ id, verdict: view.verdict(id) }));
  const usable = verdicts.filter((v) => v.verdict === 'closed' || v.verdict === 'probe');
  const probes = verdicts.filter((v) => v.verdict === 'probe').map((v) => v.id);
  if (probes.length > 0) trace.circuit_probes = probes;
  const tripped = verdicts.filter((v) => v.verdict === 'open' || v.verdict === 'half_open');
  if (tripped.length === 0) return;
  if (usable.length === 0) {
    trace.circuit_open_kept = tripped.map((v) => v.id);
    return;
  }
  trace.eligible = usable.map((v) => v.id);
  for (const v of tripped)
    trace.skipped.push({
      payment_service_id: v.id,
      reason: v.verdict === 'open' ? CIRCUIT_OPEN : CIRCUIT_HALF_OPEN,
    });
}
