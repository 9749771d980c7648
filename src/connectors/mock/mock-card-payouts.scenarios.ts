/**
 * The mock card connector's deterministic payout outcomes, apart from the payment scenarios: a
 * payment test card has no effect on a payout. The amount decides first (any card or stored card),
 * then the card by its first 6 and last 4 digits; every other payout succeeds. docs/sandbox.md "Payout
 * outcomes" and src/connectors/README.md list the same tables; a test keeps them in step.
 */
export type MockPayoutScenario =
  | { kind: 'succeed' }
  | { kind: 'decline'; errorCode: string; rawCode: string; rawDescription: string }
  | { kind: 'fail'; errorCode: string; rawCode: string; rawDescription: string }
  /** Accepted; the funds are not sent yet, so the payout stays `pending`. */
  | { kind: 'pending' }
  /** The provider pays out but the answer never arrives: the outcome is unknown. */
  | { kind: 'timeout' }
  /** The provider cannot be reached: nothing happened there. */
  | { kind: 'unavailable' };

export interface MockPayoutEntry {
  scenario: MockPayoutScenario;
  /** The wording of docs/sandbox.md. */
  description: string;
}

export const PAYOUT_CARDS: ReadonlyMap<string, MockPayoutEntry> = new Map([
  [
    '4000000000000572',
    {
      scenario: {
        kind: 'decline',
        errorCode: 'transaction_not_permitted',
        rawCode: '57',
        rawDescription: 'Transaction not permitted to cardholder',
      },
      description: 'Declined: transaction_not_permitted (raw 57), the card cannot receive payouts',
    },
  ],
  [
    '4000000000003006',
    { scenario: { kind: 'pending' }, description: 'Pending: accepted by the provider, the funds are not sent yet' },
  ],
]);

/** Amounts (minor units) that force a payout outcome with any card or stored card. */
export const PAYOUT_AMOUNT_SCENARIOS: ReadonlyMap<number, MockPayoutEntry> = new Map([
  [
    3005,
    {
      scenario: { kind: 'decline', errorCode: 'do_not_honor', rawCode: '05', rawDescription: 'Do not honor' },
      description: 'Declined: do_not_honor (raw 05)',
    },
  ],
  [
    3051,
    {
      scenario: {
        kind: 'decline',
        errorCode: 'insufficient_funds',
        rawCode: '51',
        rawDescription: 'Insufficient funds',
      },
      description: 'Declined: insufficient_funds (raw 51), the payout balance at the provider is too low',
    },
  ],
  [
    3096,
    {
      scenario: { kind: 'fail', errorCode: 'service_error', rawCode: '96', rawDescription: 'System malfunction' },
      description: 'Failed: service_error (raw 96)',
    },
  ],
  [
    3077,
    { scenario: { kind: 'pending' }, description: 'Pending: accepted by the provider, the funds are not sent yet' },
  ],
  [
    3408,
    { scenario: { kind: 'timeout' }, description: 'Network timeout: ConnectorError timeout, the outcome is unknown' },
  ],
  [
    3094,
    {
      scenario: { kind: 'unavailable' },
      description: 'Provider unreachable: ConnectorError unavailable, no payout was made',
    },
  ],
]);

const byHint = new Map(
  [...PAYOUT_CARDS].map(([number, entry]) => [`${number.slice(0, 6)}:${number.slice(-4)}`, entry.scenario]),
);

/** The scenario of a payout: the amount's, else the card's (by first 6 and last 4), else succeed. */
export function payoutScenarioOf(
  amount: number,
  hint: { bin: string | null; last4: string | null },
): MockPayoutScenario {
  const byAmount = PAYOUT_AMOUNT_SCENARIOS.get(amount);
  if (byAmount) return byAmount.scenario;
  if (hint.bin && hint.last4) return byHint.get(`${hint.bin.slice(0, 6)}:${hint.last4}`) ?? { kind: 'succeed' };
  return { kind: 'succeed' };
}
