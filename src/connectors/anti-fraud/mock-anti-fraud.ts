import type {
  AntiFraudConnector,
  AntiFraudDecideRequest,
  AntiFraudDefinition,
  AntiFraudOutcome,
} from './anti-fraud-connector.ts';

/**
 * The sandbox anti-fraud service, deterministic by card (docs/sandbox.md, "Test cards"): one card
 * is sent to manual review, one is rejected before any payment service is called; every other
 * payment is accepted. Registered as a sandbox service: production never uses it.
 */
export const ANTI_FRAUD_REVIEW_CARD = '4000000000000101';
export const ANTI_FRAUD_REJECT_CARD = '4100000000000019';

export const MOCK_ANTI_FRAUD_DEFINITION: AntiFraudDefinition = {
  id: 'mock-anti-fraud',
  displayName: 'Sandbox anti-fraud service',
  fields: [],
};

export class MockAntiFraudConnector implements AntiFraudConnector {
  readonly definition = MOCK_ANTI_FRAUD_DEFINITION;

  async decide(request: AntiFraudDecideRequest): Promise<AntiFraudOutcome> {
    const number = request.order.card?.number ?? null;
    const decision =
      number === ANTI_FRAUD_REVIEW_CARD ? 'review' : number === ANTI_FRAUD_REJECT_CARD ? 'reject' : 'accept';
    return { decision, raw: { status: decision, description: null } };
  }
}
