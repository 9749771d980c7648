import type { AntiFraudConnector, AntiFraudDefinition } from './anti-fraud-connector.ts';
import { MockAntiFraudConnector } from './mock-anti-fraud.ts';
import { RiskifiedAntiFraudConnector } from '../riskified/riskified.connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';

/**
 * Anti-fraud definition id → connector, the anti-fraud kind's registry (decision 0139). Refuses a
 * duplicate id and an id not of the form `<provider>-anti-fraud` at registration. A sandbox
 * service (`{ sandbox: true }`) is withheld in production, as the payment simulators are.
 */
export class AntiFraudRegistry {
  private readonly connectors = new Map<string, AntiFraudConnector>();
  private readonly sandbox = new Set<string>();
  private sandboxWithheld = false;

  register(connector: AntiFraudConnector, options: { sandbox?: boolean } = {}): this {
    const { id } = connector.definition;
    if (this.connectors.has(id)) throw new Error(`anti-fraud connector ${id} is registered twice`);
    const provider = id.endsWith('-anti-fraud') ? id.slice(0, -'-anti-fraud'.length) : '';
    if (provider === '' || provider.includes('-') || provider !== provider.toLowerCase())
      throw new Error(`anti-fraud connector id ${id} is not of the form <provider>-anti-fraud`);
    this.connectors.set(id, connector);
    if (options.sandbox) this.sandbox.add(id);
    return this;
  }

  /** Production: the sandbox services answer nothing. */
  withholdSandbox(): this {
    this.sandboxWithheld = true;
    return this;
  }

  /** The connector of a definition id, or null (unknown, or a withheld sandbox service). */
  find(id: string): AntiFraudConnector | null {
    return this.sandboxWithheld && this.sandbox.has(id) ? null : (this.connectors.get(id) ?? null);
  }

  /** The built-in sandbox service every merchant account has without a configured one; null in production. */
  builtIn(): AntiFraudConnector | null {
    return this.find(MOCK_ID);
  }

  isSandbox(id: string): boolean {
    return this.sandbox.has(id);
  }

  /** Every usable definition, sorted by id. */
  definitions(): AntiFraudDefinition[] {
    return [...this.connectors.keys()]
      .flatMap((id) => this.find(id)?.definition ?? [])
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

const MOCK_ID = 'mock-anti-fraud';

/** The sandbox service and the real ones; `options.baseUrls` points a real one at a fake (sandbox and tests only). */
export function createAntiFraudRegistry(options: ProviderConnectorOptions = {}): AntiFraudRegistry {
  return new AntiFraudRegistry()
    .register(new MockAntiFraudConnector(), { sandbox: true })
    .register(new RiskifiedAntiFraudConnector(options));
}
