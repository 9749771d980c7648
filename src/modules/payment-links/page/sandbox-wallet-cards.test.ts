import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MOCK_CARDS } from '../../../connectors/mock/mock-card.scenarios.ts';
import { detectSchemes, luhnValid } from '../../../lib/card-schemes.ts';
import { cardsFor, SANDBOX_WALLET_CARDS } from './sandbox-wallet-cards.ts';

const DOC = fs.readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'docs', 'digital-wallets.md'),
  'utf8',
);

describe("the simulated wallet sheet's cards", () => {
  it('have the outcome mock-card gives their number', () => {
    for (const card of SANDBOX_WALLET_CARDS) {
      expect(luhnValid(card.number), card.id).toBe(true);
      expect(detectSchemes(card.number).scheme, card.id).toBe(card.scheme.toLowerCase());
      const scenario = MOCK_CARDS.find((m) => m.number === card.number)?.scenario;
      const expected = {
        approved: undefined,
        declined: 'do_not_honor',
        insufficient_funds: 'insufficient_funds',
        failed: 'service_error',
      }[card.outcome];
      if (card.outcome === 'approved') expect(scenario, card.id).toBeUndefined();
      else expect(scenario && 'errorCode' in scenario ? scenario.errorCode : null, card.id).toBe(expected);
    }
  });

  it('are listed in docs/digital-wallets.md', () => {
    for (const card of SANDBOX_WALLET_CARDS) expect(DOC, card.id).toContain(`\`${card.number}\``);
  });

  it('offer PAN_ONLY to Google Pay only', () => {
    expect(cardsFor('applepay').some((c) => c.panOnly)).toBe(false);
    expect(cardsFor('googlepay')).toEqual(SANDBOX_WALLET_CARDS);
  });
});
