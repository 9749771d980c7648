import { Counter, Gauge, type Registry } from 'prom-client';
import type { CircuitState, Transition } from './circuit-state.ts';

/**
 * The circuit breakers' Prometheus series (docs/ops/metrics.md), in the runtime's registry. Labels
 * are closed sets, as every series of this server: the payment service definition (never a service
 * id), the state, the transition.
 */
export class CircuitMetrics {
  private readonly transitions: Counter<'payment_service_definition' | 'transition'>;

  constructor(registry: Registry, states: () => ReadonlyArray<{ definitionId: string | null; state: CircuitState }>) {
    const registers = [registry];
    this.transitions = new Counter({
      name: 'svc_circuit_breaker_transitions_total',
      help: 'Circuit breaker transitions made by this process, by payment service definition and transition (opened, reopened: a half-open probe failed, closed)',
      labelNames: ['payment_service_definition', 'transition'],
      registers,
    });
    new Gauge({
      name: 'svc_circuit_breakers_open',
      help: 'Payment services whose circuit is open or half-open (all processes, as this process last read them, at most CIRCUIT_BREAKER_SYNC_MS old), by payment service definition and state',
      labelNames: ['payment_service_definition', 'state'],
      registers,
      collect() {
        this.reset();
        const counts = new Map<string, { definition: string; state: string; n: number }>();
        for (const { definitionId, state } of states()) {
          const definition = definitionId ?? 'deleted';
          const key = `${definition} ${state}`;
          const entry = counts.get(key) ?? { definition, state, n: 0 };
          entry.n += 1;
          counts.set(key, entry);
        }
        for (const { definition, state, n } of counts.values())
          this.set({ payment_service_definition: definition, state }, n);
      },
    });
  }

  transition(definitionId: string | null, transition: Transition): void {
    this.transitions.inc({ payment_service_definition: definitionId ?? 'deleted', transition });
  }
}
