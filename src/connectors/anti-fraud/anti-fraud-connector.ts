import type { DefinitionField } from '../connector.ts';

/**
 * The anti-fraud connector kind (docs/risk.md, "Anti-fraud services"; decision 0139): a service
 * asked before the authorization whether to accept, reject or review a payment. It is not a
 * payment connector: it moves no money, so it has no capture, refund or sync, and its failures
 * never block a payment (an `error` decision is answered, never thrown, and the payment goes on).
 */

/** What a service decided, in our words. `error`: no decision (unreachable, refused, unknown answer). */
export type AntiFraudVerdict = 'accept' | 'reject' | 'review' | 'error';

/** One anti-fraud service definition (`mock-anti-fraud`, `riskified-anti-fraud`). */
export interface AntiFraudDefinition {
  /** `<provider>-anti-fraud`: the `anti_fraud_service_definition_id`. */
  id: string;
  displayName: string;
  /** Credentials and settings a merchant gives; `secret` ones are sealed in the vault. */
  fields: DefinitionField[];
}

/** The payment as an anti-fraud service sees it, before any payment service is called. */
export interface AntiFraudOrder {
  /** Our transaction id: the service's order id. */
  transactionId: string;
  /** Minor units. */
  amount: number;
  currency: string;
  country: string | null;
  createdAt: Date;
  method: string;
  /** Card facts, when the instrument is a card. The full number only reaches the sandbox service. */
  card: {
    number: string | null;
    bin: string | null;
    last4: string | null;
    scheme: string | null;
    expirationDate: string | null;
  } | null;
  buyer: {
    externalIdentifier: string | null;
    emailAddress: string | null;
    firstName: string | null;
    lastName: string | null;
  } | null;
  ipAddress: string | null;
  /** The client's `anti_fraud_fingerprint` (a device session id of the service's own script). */
  fingerprint: string | null;
  /** `connection_options` entry of this service's definition id, as the client sent it. */
  options: Record<string, unknown> | null;
}

export interface AntiFraudDecideRequest {
  credentials: Record<string, string>;
  order: AntiFraudOrder;
}

export interface AntiFraudOutcome {
  decision: AntiFraudVerdict;
  /** The service's own answer (status and description), for the audit trail; never a secret. */
  raw: { status: string | null; description: string | null };
}

/** One anti-fraud service definition's calls. */
export interface AntiFraudConnector {
  readonly definition: AntiFraudDefinition;
  /**
   * The pre-authorization decision. Never throws for the service's failures: a timeout, a refusal
   * or an answer the mapping does not know is `decision: 'error'` (fail open, decision 0139).
   */
  decide(request: AntiFraudDecideRequest): Promise<AntiFraudOutcome>;
}
