/**
 * The fake's test cards: Stripe's documented test card numbers (https://docs.stripe.com/testing)
 * and what Stripe's test mode answers for each. The fake keeps only the scenario and the last 4
 * digits of a card, never the number.
 */
export type FakeCardScenario =
  | { kind: 'approve'; cvc?: 'pass' | 'fail'; line1?: 'pass' | 'fail'; postal?: 'pass' | 'fail' }
  | { kind: 'decline'; code: string; declineCode: string | null; message: string }
  | { kind: 'three-ds' }
  | { kind: 'refund-fails' };

export const STRIPE_TEST_CARDS: Record<string, FakeCardScenario> = {
  '4242424242424242': { kind: 'approve' },
  '5555555555554444': { kind: 'approve' },
  '4000000000000101': { kind: 'approve', cvc: 'fail' },
  '4000000000000028': { kind: 'approve', line1: 'fail', postal: 'pass' },
  '4000000000000002': {
    kind: 'decline',
    code: 'card_declined',
    declineCode: 'generic_decline',
    message: 'Your card was declined.',
  },
  '4000000000009995': {
    kind: 'decline',
    code: 'card_declined',
    declineCode: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  '4000000000000069': { kind: 'decline', code: 'expired_card', declineCode: null, message: 'Your card has expired.' },
  '4000000000000127': {
    kind: 'decline',
    code: 'incorrect_cvc',
    declineCode: null,
    message: "Your card's security code is incorrect.",
  },
  '4100000000000019': {
    kind: 'decline',
    code: 'card_declined',
    declineCode: 'fraudulent',
    message: 'Your card was declined.',
  },
  '4000000000003220': { kind: 'three-ds' },
  '4000000000005126': { kind: 'refund-fails' },
};

export function scenarioOfCard(number: string): FakeCardScenario {
  return STRIPE_TEST_CARDS[number] ?? { kind: 'approve' };
}

const THREE = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** Stripe's amount rules as its API enforces them (a fake of the checks, written from its docs, not from our code). */
export function amountProblem(amount: unknown, currency: string): string | null {
  const value = Number(amount);
  if (!Number.isInteger(value) || value < 1) return 'Invalid integer: amount';
  if (THREE.has(currency) && value % 10 !== 0) return 'Invalid amount: three-decimal currencies need a last digit of 0';
  if (currency === 'isk' && value % 100 !== 0)
    return 'Currency ISK has become effectively zero-decimal and charged amounts must be evenly divisible by 100.';
  if (!/^[a-z]{3}$/.test(currency)) return 'Invalid currency: must be a lowercase ISO code';
  return null;
}
