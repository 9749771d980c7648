import { describe, expect, it } from 'vitest';
import type { PaymentConnector } from './connector.ts';
import { capabilityProblems } from './capability-check.ts';
import { MockCardConnector } from './mock/mock-card.connector.ts';
import { MockRedirectConnector } from './mock/mock-redirect.connector.ts';
import { ConnectorRegistry, createDefaultRegistry } from './registry.ts';

/** A mock-card connector with other capabilities and some methods taken away or added. */
function variant(
  id: string,
  capabilities: Partial<PaymentConnector['definition']['capabilities']>,
  methods: Partial<Record<string, unknown>> = {},
): PaymentConnector {
  const base = new MockCardConnector();
  const definition = { ...base.definition, id, capabilities: { ...base.definition.capabilities, ...capabilities } };
  return Object.assign(Object.create(base) as PaymentConnector, { definition }, methods);
}

describe('happy', () => {
  it('registers every built-in connector: their flags match their methods', () => {
    const registry = createDefaultRegistry();
    expect(registry.definitions().map((d) => d.id)).toEqual([
      'adyen-card',
      'adyen-ideal',
      'adyen-klarna',
      'adyen-sepa',
      'braintree-card',
      'checkout-card',
      'dlocal-pix',
      'gocardless-gocardless',
      'mock-card',
      'mock-gocardless',
      'mock-ideal',
      'mock-klarna',
      'mock-paybybank',
      'mock-paypal',
      'mock-pix',
      'mock-sepa',
      'paypal-paypal',
      'stripe-card',
    ]);
    for (const definition of registry.definitions())
      expect(
        capabilityProblems(registry.get(definition.id), { sandbox: registry.isSandbox(definition.id) }),
        definition.id,
      ).toEqual([]);
  });

  it('accepts a connector without an optional capability and without its methods', () => {
    const connector = variant(
      'plain-card',
      { payout: false, sessions: false, incrementalAuthorization: false },
      { payout: undefined, syncPayout: undefined, createSession: undefined, incrementAuthorization: undefined },
    );
    expect(() => new ConnectorRegistry().register(connector)).not.toThrow();
    expect(() => new ConnectorRegistry().register(new MockRedirectConnector(), { sandbox: true })).not.toThrow();
  });
});

describe('errors', () => {
  it('refuses a flag whose method is missing, naming the connector, the flag and the method', () => {
    const connector = variant('broken-card', { payout: true }, { payout: undefined });
    expect(() => new ConnectorRegistry().register(connector)).toThrow(
      'connector broken-card does not match its capabilities: capability payout is declared but method payout is missing',
    );
  });

  it('refuses a method whose flag is not declared', () => {
    const connector = variant('broken-card', { incrementalAuthorization: false });
    expect(() => new ConnectorRegistry().register(connector)).toThrow(
      /connector broken-card .*method incrementAuthorization is present but capability incrementalAuthorization is not declared/,
    );
  });

  it('lists every mismatch of a deliberately inconsistent connector at once', () => {
    const connector = variant(
      'broken-card',
      { sync: true, tokenize: false, void: true, sessions: false },
      { sync: undefined, void: undefined },
    );
    expect(capabilityProblems(connector)).toEqual([
      'capability void is declared but method void is missing',
      'capability cancel is declared but method void is missing',
      'capability sync is declared but method sync is missing',
      'method tokenize is present but capability tokenize is not declared',
      'method syncToken is present but capability tokenize is not declared',
      'method createSession is present but capability sessions is not declared',
    ]);
    const registry = new ConnectorRegistry();
    expect(() => registry.register(connector)).toThrow(/broken-card/);
    expect(registry.find('broken-card')).toBeNull();
  });

  it('refuses settlement reports on a sandbox connector (its settlements are simulated)', () => {
    const connector = variant(
      'sandbox-card',
      {},
      { settlements: async () => ({ lines: [], cursor: null, done: true }) },
    );
    expect(() => new ConnectorRegistry().register(connector, { sandbox: true })).toThrow(
      'connector sandbox-card does not match its capabilities: method settlements is present on a sandbox connector (sandbox settlements are simulated)',
    );
    expect(() => new ConnectorRegistry().register(connector)).not.toThrow();
  });
});
