/**
 * The sandbox anti-fraud decision, deterministic by card (docs/sandbox.md, "Test cards"): one card
 * is sent to manual review (`pending_review: true`), one is rejected before any payment service is
 * called; every other card is accepted. Production has no built-in anti-fraud service: null.
 */
export const ANTI_FRAUD_REVIEW_CARD = '4000000000000101';
export const ANTI_FRAUD_REJECT_CARD = '4100000000000019';

export type AntiFraudDecision = 'accept' | 'review' | 'reject' | null;

export function antiFraudDecision(environment: string, cardNumber: string | null): AntiFraudDecision {
  if (environment === 'production') return null;
  if (cardNumber === ANTI_FRAUD_REVIEW_CARD) return 'review';
  if (cardNumber === ANTI_FRAUD_REJECT_CARD) return 'reject';
  return 'accept';
}
