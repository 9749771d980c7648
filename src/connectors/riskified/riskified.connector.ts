import type {
  AntiFraudChargebackRequest,
  AntiFraudConnector,
  AntiFraudDecideRequest,
  AntiFraudDelivery,
  AntiFraudOutcome,
  AntiFraudUpdateRequest,
} from '../anti-fraud/anti-fraud-connector.ts';
import { ConnectorError } from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { RISKIFIED_UPDATE_TIMEOUT_MS, RiskifiedClient } from './riskified.client.ts';
import { RISKIFIED_ANTI_FRAUD_DEFINITION } from './riskified.definition.ts';
import { verdictOf } from './riskified.mapping.ts';
import { riskifiedOrder } from './riskified.orders.ts';
import { riskifiedChargeback, riskifiedUpdate } from './riskified.updates.ts';

const text = (value: unknown): string | null => (typeof value === 'string' ? value.slice(0, 200) : null);

/**
 * Riskified as an anti-fraud service (docs/connectors-riskified.md): the synchronous Decide call
 * (`POST /decide`) before the authorization. A failure of any kind is `error`, never thrown.
 * Afterwards (decision 0143): the authorization's outcome (`/decision`, `/checkout_denied`), a
 * cancel, a refund and a chargeback, each answered as a delivery, never thrown.
 */
export class RiskifiedAntiFraudConnector implements AntiFraudConnector {
  readonly definition = RISKIFIED_ANTI_FRAUD_DEFINITION;
  private readonly client: RiskifiedClient;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new RiskifiedClient(options);
  }

  async decide(request: AntiFraudDecideRequest): Promise<AntiFraudOutcome> {
    try {
      const answer = await this.client.post(request.credentials, '/decide', riskifiedOrder(request.order));
      const body = (answer.json ?? {}) as {
        order?: { status?: unknown; description?: unknown };
        error?: { message?: unknown };
      };
      if (answer.status < 200 || answer.status >= 300)
        return { decision: 'error', raw: { status: `http_${answer.status}`, description: text(body.error?.message) } };
      return {
        decision: verdictOf(body.order?.status),
        raw: { status: text(body.order?.status), description: text(body.order?.description) },
      };
    } catch (error) {
      // ConnectorError (unreachable, timed out, refused locally): no decision; the payment goes on.
      return {
        decision: 'error',
        raw: { status: error instanceof ConnectorError ? error.kind : 'unknown', description: null },
      };
    }
  }

  async updateTransaction(request: AntiFraudUpdateRequest): Promise<AntiFraudDelivery> {
    const { path, body } = riskifiedUpdate(request.transactionId, request.update);
    return this.deliver(request.credentials, path, body);
  }

  async reportChargeback(request: AntiFraudChargebackRequest): Promise<AntiFraudDelivery> {
    return this.deliver(
      request.credentials,
      '/chargeback',
      riskifiedChargeback(request.transactionId, request.chargeback),
    );
  }

  private async deliver(credentials: Record<string, string>, path: string, body: unknown): Promise<AntiFraudDelivery> {
    try {
      const answer = await this.client.post(credentials, path, body, RISKIFIED_UPDATE_TIMEOUT_MS);
      const message = text((answer.json as { error?: { message?: unknown } } | null)?.error?.message);
      return { result: deliveryOf(answer.status), status: `http_${answer.status}`, description: message };
    } catch (error) {
      // Missing credentials (refused before any call) cannot improve; unreachable and timeouts can.
      const kind = error instanceof ConnectorError ? error.kind : 'unavailable';
      return { result: kind === 'invalid_request' ? 'refused' : 'failed', status: kind, description: null };
    }
  }
}

/** A 5xx, a throttled 429 or a 408 is worth sending again; another 4xx refuses the request itself. */
function deliveryOf(status: number): AntiFraudDelivery['result'] {
  if (status >= 200 && status < 300) return 'sent';
  return status >= 400 && status < 500 && status !== 408 && status !== 429 ? 'refused' : 'failed';
}
