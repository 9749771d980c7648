import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../lib/card-schemes.ts';
import { AMOUNT_SCENARIOS, MOCK_CARDS, scenarioOf } from './mock-card.scenarios.ts';

const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

describe('happy', () => {
  it('lists every test card and amount in the README', () => {
    for (const card of MOCK_CARDS) expect(readme).toContain(`| \`${card.number}\` | ${card.description} |`);
    for (const [amount, entry] of AMOUNT_SCENARIOS) expect(readme).toContain(`| \`${amount}\` | ${entry.description} |`);
  });

  it('finds each card by its first 6 and last 4 digits, and amounts first', () => {
    for (const card of MOCK_CARDS) {
      expect(luhnValid(card.number)).toBe(true);
      expect(scenarioOf(1000, { bin: card.number.slice(0, 8), last4: card.number.slice(-4) })).toEqual(card.scenario);
    }
    expect(scenarioOf(2051, { bin: '411111', last4: '1111' }).kind).toBe('decline');
    expect(scenarioOf(1000, { bin: '411111', last4: '1111' }).kind).toBe('approve');
    expect(scenarioOf(1000, { bin: null, last4: null }).kind).toBe('approve');
  });
});
