import type {
  AntiFraudConnector,
  AntiFraudDecideRequest,
  AntiFraudOutcome,
} from '../anti-fraud/anti-fraud-connector.ts';
import { ConnectorError } from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { RiskifiedClient } from './riskified.client.ts';
import { RISKIFIED_ANTI_FRAUD_DEFINITION } from './riskified.definition.ts';
import { verdictOf } from './riskified.mapping.ts';
import { riskifiedOrder } from './riskified.orders.ts';

const text = (value: unknown): string | null => (typeof value === 'string' ? value.slice(0, 200) : null);

/**
 * Riskified as an anti-fraud service (docs/connectors-riskified.md): the synchronous Decide call
 * (`POST /decide`) before the authorization. A failure of any kind is `error`, never thrown.
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
}
