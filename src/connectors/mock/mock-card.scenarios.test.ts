import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { luhnValid } from '../../lib/card-schemes.ts';
import { PAYOUT_AMOUNT_SCENARIOS, PAYOUT_CARDS, payoutScenarioOf } from './mock-card-payouts.scenarios.ts';
import { AMOUNT_SCENARIOS, MOCK_CARDS, scenarioOf } from './mock-card.scenarios.ts';

const sandboxPage = readFileSync(new URL('../../../docs/sandbox.md', import.meta.url), 'utf8');
const connectorsReadme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('happy', () => {
  it('lists every test card and amount in docs/sandbox.md', () => {
    for (const card of MOCK_CARDS) expect(sandboxPage).toContain(`| \`${card.number}\` | ${card.description} |`);
    for (const [amount, entry] of AMOUNT_SCENARIOS)
      expect(sandboxPage).toContain(`| \`${amount}\` | ${entry.description} |`);
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

  it('lists every payout test card and amount in docs/sandbox.md and the connectors README', () => {
    for (const text of [sandboxPage, connectorsReadme]) {
      for (const [number, entry] of PAYOUT_CARDS) expect(text).toContain(`| \`${number}\` | ${entry.description} |`);
      for (const [amount, entry] of PAYOUT_AMOUNT_SCENARIOS)
        expect(text).toContain(`| \`${amount}\` | ${entry.description} |`);
    }
  });

  it('finds each payout card by its first 6 and last 4 digits, and payout amounts first', () => {
    const paymentHints = new Set(MOCK_CARDS.map((card) => `${card.number.slice(0, 6)}:${card.number.slice(-4)}`));
    for (const [number, entry] of PAYOUT_CARDS) {
      expect(luhnValid(number)).toBe(true);
      expect(paymentHints.has(`${number.slice(0, 6)}:${number.slice(-4)}`)).toBe(false);
      expect(payoutScenarioOf(1000, { bin: number.slice(0, 8), last4: number.slice(-4) })).toEqual(entry.scenario);
    }
    for (const amount of PAYOUT_AMOUNT_SCENARIOS.keys()) expect(AMOUNT_SCENARIOS.has(amount)).toBe(false);
    expect(payoutScenarioOf(3005, { bin: '400000', last4: '3006' }).kind).toBe('decline');
    expect(payoutScenarioOf(2005, { bin: '400000', last4: '0002' }).kind).toBe('succeed');
    expect(payoutScenarioOf(1000, { bin: null, last4: null }).kind).toBe('succeed');
  });
});
