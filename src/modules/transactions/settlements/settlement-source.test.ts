import { describe, expect, it } from 'vitest';
import { settlementSourceOf } from './settlement-source.ts';

const reads = { settlements: async () => ({ lines: [], cursor: null, done: true }) };

describe('settlementSourceOf', () => {
  it('a connector that reads its provider\'s reports: provider; a sandbox one: simulated; another real one: none', () => {
    expect(settlementSourceOf('stripe-card', reads)).toBe('provider');
    expect(settlementSourceOf('mock-card', {})).toBe('simulated');
    expect(settlementSourceOf('mock-paybybank', {})).toBe('simulated');
    expect(settlementSourceOf('acme-card', {})).toBe('none');
    expect(settlementSourceOf('acme-card', null)).toBe('none');
    // No payment service: the sandbox's gift cards.
    expect(settlementSourceOf(null, null)).toBe('simulated');
  });
});
