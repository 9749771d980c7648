import { ConnectorError, type PaymentConnector } from './connector.ts';

/** What a connector call turned into: `ok`, a `ConnectorError` kind, or `error` (anything else thrown). */
export type ConnectorCallResult = 'ok' | ConnectorError['kind'] | 'error';

export interface ObservedCall {
  /** The payment service definition id (`mock-card`): a closed set, safe as a metric label. */
  definition: string;
  /** The connector method: `authorize`, `capture`, ... */
  operation: string;
  ms: number;
  result: ConnectorCallResult;
  /** The answer's `status` field, when the call answered with one (`authorized`, `declined`, ...). */
  status: string | null;
}

export type ConnectorObserver = (call: ObservedCall) => void;

/** The methods that talk to the provider (captureRules is a local computation). */
const CALLS = new Set(['verifyCredentials', 'authorize', 'capture', 'void', 'refund', 'sync', 'tokenize', 'syncToken', 'createSession', 'incrementAuthorization', 'payout', 'syncPayout']);

/**
 * Wraps a connector so every provider call is timed and reported to the registry's observer
 * (metrics, Server-Timing). The connector itself is untouched: a Proxy binds each call to it, and
 * an observer failure never changes the call's answer.
 */
export function instrumentConnector(connector: PaymentConnector, observer: () => ConnectorObserver | null): PaymentConnector {
  const definition = connector.definition.id;
  const wrapped = new Map<string, unknown>();
  const report = (call: ObservedCall) => {
    try {
      observer()?.(call);
    } catch {
      // Metrics are best effort: a payment never fails because of them.
    }
  };
  return new Proxy(connector, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !CALLS.has(property) || typeof value !== 'function') return value;
      let fn = wrapped.get(property);
      if (!fn) {
        fn = async (...args: unknown[]) => {
          const started = performance.now();
          try {
            const answer = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as { status?: unknown } | null;
            report({ definition, operation: property, ms: performance.now() - started, result: 'ok', status: typeof answer?.status === 'string' ? answer.status : null });
            return answer;
          } catch (error) {
            report({ definition, operation: property, ms: performance.now() - started, result: error instanceof ConnectorError ? error.kind : 'error', status: null });
            throw error;
          }
        };
        wrapped.set(property, fn);
      }
      return fn;
    },
  });
}
