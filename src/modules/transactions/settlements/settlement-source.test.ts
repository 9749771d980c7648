import { describe, expect, it } from 'vitest';
import { settlementSourceOf } from './settlement-source.ts';

const reads = { settlements: async () => ({ lines: [], cursor: null, done: true }) };

describe('settlementSourceOf', () => {
  it("a connector that reads its provider's reports: provider; a sandbox one: simulated; another real one: none", () => {
    expect(settlementSourceOf('stripe-card', reads, false)).toBe('provider');
    expect(settlementSourceOf('mock-card', {}, true)).toBe('simulated');
    expect(settlementSourceOf('mock-paybybank', {}, true)).toBe('simulated');
    expect(settlementSourceOf('acme-card', {}, false)).toBe('none');
    expect(settlementSourceOf('acme-card', null, false)).toBe('none');
    // A real connector named like a simulator is no simulator: only the registration says so.
    expect(settlementSourceOf('mock-lookalike', {}, false)).toBe('none');
    // No payment service: the sandbox's gift cards.
    expect(settlementSourceOf(null, null, false)).toBe('simulated');
  });

  it('simulates nothing in production, whatever the connector', () => {
    expect(settlementSourceOf('mock-card', null, true, true)).toBe('none');
    expect(settlementSourceOf(null, null, false, true)).toBe('none');
    expect(settlementSourceOf('stripe-card', reads, false, true)).toBe('provider');
  });
});
