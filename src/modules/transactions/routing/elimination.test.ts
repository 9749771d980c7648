import { describe, expect, it } from 'vitest';
import { route, type RoutingCandidate, type RoutingRequest } from './routing.ts';
import type { BreakerVerdict, BreakerView } from './elimination.ts';

const candidate = (id: string, position: number): RoutingCandidate => ({
  id,
  definitionId: 'mock-card',
  method: 'card',
  displayName: id,
  acceptedCurrencies: ['USD'],
  acceptedCountries: ['US'],
  active: true,
  position,
});
const request = (breakers: BreakerView | null, forced: string | null = null): RoutingRequest => ({
  method: 'card',
  currency: 'USD',
  country: 'US',
  forcedServiceId: forced,
  knownDefinitions: new Set(['mock-card']),
  breakers,
});
const view = (verdicts: Record<string, BreakerVerdict>): BreakerView => ({
  verdict: (id) => verdicts[id] ?? 'closed',
});
const ABC = [candidate('a', 0), candidate('b', 1), candidate('c', 2)];

describe('elimination in routing', () => {
  it('skips services whose circuit is open or half-open while another eligible one is closed', () => {
    const trace = route(ABC, request(view({ a: 'open', b: 'half_open' })));
    expect(trace.eligible).toEqual(['c']);
    expect(trace.selected).toBe('c');
    expect(trace.skipped).toEqual([
      { payment_service_id: 'a', reason: 'circuit_open' },
      { payment_service_id: 'b', reason: 'circuit_half_open' },
    ]);
    expect(trace.circuit_open_kept).toBeUndefined();
  });

  it('sends a probe to a half-open service in its place in the order', () => {
    const trace = route(ABC, request(view({ a: 'probe', b: 'open' })));
    expect(trace.eligible).toEqual(['a', 'c']);
    expect(trace.circuit_probes).toEqual(['a']);
    expect(trace.skipped).toEqual([{ payment_service_id: 'b', reason: 'circuit_open' }]);
  });

  it('keeps every eligible service when none has a closed circuit, and says so', () => {
    const trace = route(ABC, request(view({ a: 'open', b: 'half_open', c: 'open' })));
    expect(trace.eligible).toEqual(['a', 'b', 'c']);
    expect(trace.selected).toBe('a');
    expect(trace.skipped).toEqual([]);
    expect(trace.circuit_open_kept).toEqual(['a', 'b', 'c']);
  });

  it('never skips a forced service, and changes nothing without open circuits', () => {
    expect(route(ABC, request(view({ a: 'open' }), 'a')).selected).toBe('a');
    expect(route(ABC, request(null))).toEqual({
      rule: 'first-eligible-by-position',
      eligible: ['a', 'b', 'c'],
      skipped: [],
      selected: 'a',
    });
  });

  it('asks only about eligible services', () => {
    const asked: string[] = [];
    const inactive = { ...candidate('z', 3), active: false };
    const verdict = (id: string): BreakerVerdict => {
      asked.push(id);
      return 'closed';
    };
    route([...ABC, inactive], request({ verdict }));
    expect(asked).toEqual(['a', 'b', 'c']);
  });
});
