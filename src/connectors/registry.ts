import type { ConnectorDefinition, PaymentConnector } from './connector.ts';
import { capabilityProblems } from './capability-check.ts';
import { instrumentConnector, type ConnectorObserver } from './instrument.ts';
import { MockCardConnector } from './mock/mock-card.connector.ts';
import { MOCK_PAYPAL_DEFINITION } from './mock/mock-paypal.definition.ts';
import { MockRedirectConnector } from './mock/mock-redirect.connector.ts';
import { MOCK_GOCARDLESS_DEFINITION } from './mock/mock-gocardless.definition.ts';
import { MOCK_IDEAL_DEFINITION } from './mock/mock-ideal.definition.ts';
import { MOCK_KLARNA_DEFINITION } from './mock/mock-klarna.definition.ts';
import { MOCK_PIX_DEFINITION } from './mock/mock-pix.definition.ts';
import { MOCK_SEPA_DEFINITION } from './mock/mock-sepa.definition.ts';
import { AdyenCardConnector } from './adyen/adyen.connector.ts';
import { AdyenIdealConnector } from './adyen/adyen-ideal.connector.ts';
import { AdyenKlarnaConnector } from './adyen/adyen-klarna.connector.ts';
import { AdyenSepaConnector } from './adyen/adyen-sepa.connector.ts';
import { BraintreeCardConnector } from './braintree/braintree.connector.ts';
import { StripeCardConnector } from './stripe/stripe-card.connector.ts';
import { GoCardlessConnector } from './gocardless/gocardless.connector.ts';
import { PaypalConnector } from './paypal/paypal.connector.ts';
import { CheckoutCardConnector } from './checkout/checkout.connector.ts';
import { DlocalPixConnector } from './dlocal/dlocal.connector.ts';
import type { AppError } from '../errors/app-error.ts';
import { sandboxConnectorRefusal } from '../errors/sandbox-only.ts';
import type { SimulatorLedger } from './simulator-ledger.ts';

/**
 * Connector id → connector. Refuses duplicate ids, and a connector whose capability flags do not
 * match its methods (capability-check.ts), at registration, and unknown ids at lookup, so a
 * misconfiguration fails at start, not on the first payment.
 */
export class ConnectorRegistry {
  private readonly connectors = new Map<string, PaymentConnector>();
  /** The built-in simulators' definitions (`register(c, { sandbox: true })`): method by id. */
  private readonly sandbox = new Map<string, string>();
  /** Set by `withholdSandbox()`: the simulators are out of `find`, `get` and `definitions`. */
  private sandboxWithheld = false;
  private observer: ConnectorObserver | null = null;

  /** Reports every provider call of every connector (timing and result) to `observer`. */
  observe(observer: ConnectorObserver): this {
    this.observer = observer;
    return this;
  }

  /** `sandbox`: a built-in simulator, withheld in production (`withholdSandbox`). */
  register(connector: PaymentConnector, options: { sandbox?: boolean } = {}): this {
    const { id } = connector.definition;
    if (this.connectors.has(id)) throw new Error(`connector ${id} is registered twice`);
    if (!/^[a-z0-9]+(-[a-z0-9_]+)+$/.test(id))
      throw new Error(`connector id ${id} is not of the form <provider>-<method>`);
    const problems = capabilityProblems(connector, options);
    if (problems.length > 0) throw new Error(`connector ${id} does not match its capabilities: ${problems.join('; ')}`);
    this.connectors.set(
      id,
      instrumentConnector(connector, () => this.observer),
    );
    if (options.sandbox) this.sandbox.set(id, connector.definition.method);
    return this;
  }

  /**
   * Production: the simulators answer nothing. Their ids stay known, so a request naming one, or a
   * payment service made with one in the sandbox, is refused with `sandboxRefusal` rather than as
   * an unknown definition.
   */
  withholdSandbox(): this {
    this.sandboxWithheld = true;
    return this;
  }

  private usable(id: string): PaymentConnector | null {
    return this.sandboxWithheld && this.sandbox.has(id) ? null : (this.connectors.get(id) ?? null);
  }

  /** The connector of a definition id, or null when no such definition exists (or it is a withheld simulator). */
  find(id: string): PaymentConnector | null {
    return this.usable(id);
  }

  get(id: string): PaymentConnector {
    const connector = this.usable(id);
    if (!connector) throw new Error(`no connector is registered for ${id}`);
    return connector;
  }

  /** Every usable definition, sorted by id (the catalogue order). */
  definitions(): ConnectorDefinition[] {
    return [...this.connectors.keys()]
      .flatMap((id) => this.usable(id)?.definition ?? [])
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Whether `id` is a built-in simulator's definition (registered with `sandbox: true`), withheld or not. */
  isSandbox(id: string): boolean {
    return this.sandbox.has(id);
  }

  /** The ids of the withheld simulators (none unless `withholdSandbox` was called). */
  withheldIds(): string[] {
    return this.sandboxWithheld ? [...this.sandbox.keys()] : [];
  }

  /**
   * When `id` is a withheld simulator: its refusal, naming the real definitions of its method
   * (`pointer`: where the request named it). Null for any other id.
   */
  sandboxRefusal(id: string, pointer: string | null = null): AppError | null {
    const method = this.sandboxWithheld ? this.sandbox.get(id) : undefined;
    if (method === undefined) return null;
    return sandboxConnectorRefusal(
      id,
      method,
      this.definitions()
        .filter((d) => d.method === method)
        .map((d) => d.id),
      pointer,
    );
  }
}

/** Where the real connectors call (null: the provider's own host; an override is for tests and the sandbox only). */
export interface ConnectorEndpoints {
  stripeApiBaseUrl?: string | null;
  /** Definition id → base URL for the Adyen, Braintree, PayPal and Checkout.com connectors (`CONNECTOR_BASE_URLS`, sandbox only). */
  /** Definition id → base URL for the Adyen, Braintree, PayPal and GoCardless connectors (`CONNECTOR_BASE_URLS`, sandbox only). */
  baseUrls?: Readonly<Record<string, string>>;
}

/**
 * The built-in sandbox connectors and the real providers' connectors. `ledger`: where the
 * simulators note the calls they receive (the server's is the database: `simulator_calls`).
 */
export function createDefaultRegistry(endpoints: ConnectorEndpoints = {}, ledger?: SimulatorLedger): ConnectorRegistry {
  return new ConnectorRegistry()
    .register(new MockCardConnector(ledger), { sandbox: true })
    .register(new MockRedirectConnector(), { sandbox: true })
    .register(new MockRedirectConnector(MOCK_PAYPAL_DEFINITION, 'mock_pp'), { sandbox: true })
    .register(new MockRedirectConnector(MOCK_KLARNA_DEFINITION, 'mock_kl'), { sandbox: true })
    .register(new MockRedirectConnector(MOCK_IDEAL_DEFINITION, 'mock_ideal', 'captured-at-once'), { sandbox: true })
    .register(new MockRedirectConnector(MOCK_GOCARDLESS_DEFINITION, 'mock_gc', 'direct-debit'), { sandbox: true })
    .register(new MockRedirectConnector(MOCK_SEPA_DEFINITION, 'mock_sepa', 'direct-debit'), { sandbox: true })
    .register(new MockRedirectConnector(MOCK_PIX_DEFINITION, 'mock_pix', 'pix'), { sandbox: true })
    .register(new StripeCardConnector({ baseUrl: endpoints.stripeApiBaseUrl ?? null }))
    .register(new AdyenCardConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new AdyenIdealConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new AdyenSepaConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new AdyenKlarnaConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new BraintreeCardConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new PaypalConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new CheckoutCardConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new DlocalPixConnector({ baseUrls: endpoints.baseUrls ?? {} }))
    .register(new GoCardlessConnector({ baseUrls: endpoints.baseUrls ?? {} }));
}
