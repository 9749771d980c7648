import type { ConnectorCapabilities, PaymentConnector } from './connector.ts';

/**
 * A connector's capability flags against its methods, checked when it is registered (registry.ts):
 * routing and the transaction rules trust the flags, so a flag without its method would fail on
 * the first payment that needs it, and a method without its flag would never be called.
 */

type Method = Exclude<keyof PaymentConnector, 'definition'>;
type FlagName = Exclude<keyof ConnectorCapabilities, 'encryptedWalletTokens' | 'providerAuthentication'>;

/**
 * Each capability flag, the methods it needs (connector.ts: "Present when `capabilities.…`").
 * Complete: a flag added to `ConnectorCapabilities` does not compile until it is listed here
 * (an empty list: the flag needs no method of its own, e.g. 3DS data passed to `authorize`).
 */
const FLAG_METHODS = {
  multiCapture: ['capture'],
  overCapture: ['capture'],
  partialCapture: ['capture'],
  partialRefund: ['refund'],
  void: ['void'],
  // Cancelling a payment that awaits its buyer is a void at the provider.
  cancel: ['void'],
  sync: ['sync'],
  tokenize: ['tokenize'],
  payout: ['payout'],
  sessions: ['createSession'],
  incrementalAuthorization: ['incrementAuthorization'],
  threeDSecure: [],
  networkTokens: [],
  redirect: [],
} as const satisfies Record<FlagName, readonly Method[]>;

/** Optional methods and the flag that must be declared for each (the contract's other methods are always present). */
const METHOD_FLAG = {
  sync: 'sync',
  tokenize: 'tokenize',
  syncToken: 'tokenize',
  payout: 'payout',
  syncPayout: 'payout',
  createSession: 'sessions',
  incrementAuthorization: 'incrementalAuthorization',
} as const satisfies Partial<Record<Method, FlagName>>;

const has = (connector: PaymentConnector, method: Method) =>
  typeof (connector as unknown as Record<string, unknown>)[method] === 'function';

/**
 * What is inconsistent between the connector's flags and its methods, one sentence each; empty
 * when consistent. `sandbox`: registered as a built-in simulator, which has no settlement reports
 * (its settlements are simulated by the settlements service).
 */
export function capabilityProblems(connector: PaymentConnector, options: { sandbox?: boolean } = {}): string[] {
  const capabilities = connector.definition.capabilities;
  const problems: string[] = [];
  for (const [flag, methods] of Object.entries(FLAG_METHODS) as Array<[FlagName, readonly Method[]]>) {
    if (!capabilities[flag]) continue;
    for (const method of methods)
      if (!has(connector, method)) problems.push(`capability ${flag} is declared but method ${method} is missing`);
  }
  for (const [method, flag] of Object.entries(METHOD_FLAG) as Array<[Method, FlagName]>) {
    if (has(connector, method) && !capabilities[flag])
      problems.push(`method ${method} is present but capability ${flag} is not declared`);
  }
  if (!options.sandbox && connector.simulatedEvents !== undefined)
    problems.push('method simulatedEvents is present on a connector that is not a sandbox simulator');
  if (options.sandbox && connector.settlements !== undefined)
    problems.push('method settlements is present on a sandbox connector (sandbox settlements are simulated)');
  return problems;
}
