import type { ConnectorDefinition, PaymentConnector } from './connector.ts';
import { instrumentConnector, type ConnectorObserver } from './instrument.ts';
import { MockCardConnector } from './mock/mock-card.connector.ts';
import { MockRedirectConnector } from './mock/mock-redirect.connector.ts';
import { AdyenCardConnector } from './adyen/adyen.connector.ts';
import { BraintreeCardConnector } from './braintree/braintree.connector.ts';
import { StripeCardConnector } from './stripe/stripe-card.connector.ts';
import type { SimulatorLedger } from './simulator-ledger.ts';

/**
 * Connector id → connector. Refuses duplicate ids at registration and unknown ids at lookup, so a
 * misconfiguration fails at start, not on the first payment.
 */
export class ConnectorRegistry {
  private readonly connectors = new Map<string, PaymentConnector>();
  private observer: ConnectorObserver | null = null;

  /** Reports every provider call of every connector (timing and result) to `observer`. */
  observe(observer: ConnectorObserver): this {
    this.observer = observer;
    return this;
  }

  register(connector: PaymentConnector): this {
    const { id } = connector.definition;
    if (this.connectors.has(id)) throw new Error(`connector ${id} is registered twice`);
    if (!/^[a-z0-9]+(-[a-z0-9_]+)+$/.test(id)) throw new Error(`connector id ${id} is not of the form <provider>-<method>`);
    this.connectors.set(id, instrumentConnector(connector, () => this.observer));
    return this;
  }

  /** The connector of a definition id, or null when no such definition exists. */
  find(id: string): PaymentConnector | null {
    return this.connectors.get(id) ?? null;
  }

  get(id: string): PaymentConnector {
    const connector = this.connectors.get(id);
    if (!connector) throw new Error(`no connector is registered for ${id}`);
    return connector;
  }

  /** Every definition, sorted by id (the catalogue order). */
  definitions(): ConnectorDefinition[] {
    return [...this.connectors.values()].map((c) => c.definition).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

/** Where the real connectors call (null: the provider's own host; an override is for tests and the sandbox only). */
export interface ConnectorEndpoints {
  stripeApiBaseUrl?: string | null;
  /** Definition id → base URL for the Adyen and Braintree connectors (`CONNECTOR_BASE_URLS`, sandbox only). */
  baseUrls?: Readonly<Record<string, string>>;
}

/**
 * The built-in sandbox connectors and the real providers' connectors. `ledger`: where the
 * simulators note the calls they receive (the server's is the database: `simulator_calls`).
 */
export function createDefaultRegistry(endpoints: ConnectorEndpoints = {}, ledger?: SimulatorLedger): ConnectorRegistry {
  return new ConnectorRegistry()
    .register(new MockCardConnector(ledger))
    .register(new MockRedirectConnector())
    .register(new StripeCardConnector({ baseUrl: endpoints.stripeApiBaseUrl ?? null }))
    .register(new AdyenCardConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new BraintreeCardConnector({ baseUrls: endpoints.baseUrls ?? {} }));
}
