import type { DefinitionField } from '../connector.ts';

/**
 * The anti-fraud connector kind (docs/risk.md, "Anti-fraud services"; decision 0139): a service
 * asked before the authorization whether to accept, reject or review a payment. It is not a
 * payment connector: it moves no money, so it has no capture, refund or sync, and its failures
 * never block a payment (an `error` decision is answered, never thrown, and the payment goes on).
 * A service that wants to learn from what followed its decision also takes the payment's later
 * outcomes and its chargebacks (decision 0143), sent by a background job, never on a payment's path.
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
export interface AntiFraudConnector extends AntiFraudFeedback {
  readonly definition: AntiFraudDefinition;
  /**
   * The pre-authorization decision. Never throws for the service's failures: a timeout, a refusal
   * or an answer the mapping does not know is `decision: 'error'` (fail open, decision 0139).
   */
  decide(request: AntiFraudDecideRequest): Promise<AntiFraudOutcome>;
}

/**
 * What followed the service's decision, in our words (decision 0143): the authorization's outcome
 * at the payment service, then a cancel (void) of an approved payment, or one refund. Amounts in
 * minor units; `at` is when it happened on our side.
 */
export type AntiFraudTransactionUpdate =
  | { kind: 'approved'; at: Date; amount: number; currency: string; authorizationId: string | null }
  | { kind: 'declined'; at: Date; errorCode: string; message: string | null }
  | { kind: 'canceled'; at: Date; reason: string }
  | { kind: 'refunded'; at: Date; refundId: string; amount: number; currency: string; reason: string | null };

/** A chargeback of a payment the service decided on. Minor units. */
export interface AntiFraudChargeback {
  /** The provider's dispute or report line id, else ours. */
  id: string;
  at: Date;
  amount: number;
  currency: string;
  reasonCode: string | null;
  reasonDescription: string | null;
  /** The payment service definition that reported it. */
  gateway: string | null;
}

export interface AntiFraudUpdateRequest {
  credentials: Record<string, string>;
  /** Our transaction id: the service's order id, as in the decision. */
  transactionId: string;
  update: AntiFraudTransactionUpdate;
}

export interface AntiFraudChargebackRequest {
  credentials: Record<string, string>;
  transactionId: string;
  chargeback: AntiFraudChargeback;
}

/**
 * How a report went. `sent`: the service took it. `refused`: it answered that it will not (a 4xx
 * other than 408 and 429, or credentials missing): no retry can change that. `failed`: no answer,
 * a timeout, a 408, 429 or 5xx: worth another try. Never thrown.
 */
export interface AntiFraudDelivery {
  result: 'sent' | 'refused' | 'failed';
  /** `http_<status>` or the failure's kind (timeout, unavailable, invalid_request). */
  status: string;
  /** The service's own message, if any (never a secret). */
  description: string | null;
}

/** The optional calls after the decision (decision 0143); a service without them is told nothing. */
export interface AntiFraudFeedback {
  /** The post-authorization update: the authorization's outcome, a cancel, a refund. */
  updateTransaction?(request: AntiFraudUpdateRequest): Promise<AntiFraudDelivery>;
  /** Chargeback feedback. */
  reportChargeback?(request: AntiFraudChargebackRequest): Promise<AntiFraudDelivery>;
}
