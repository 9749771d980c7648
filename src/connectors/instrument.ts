import { withCallFaults } from '../observability/test-faults.ts';
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
const CALLS = new Set([
  'verifyCredentials',
  'authorize',
  'capture',
  'void',
  'refund',
  'sync',
  'tokenize',
  'syncToken',
  'createSession',
  'clientSession',
  'incrementAuthorization',
  'payout',
  'syncPayout',
  'settlements',
]);

/**
 * Wraps a connector so every provider call is timed and reported to the registry's observer
 * (metrics, Server-Timing). The connector itself is untouched: a Proxy binds each call to it, and
 * an observer failure never changes the call's answer.
 */
export function instrumentConnector(
  connector: PaymentConnector,
  observer: () => ConnectorObserver | null,
): PaymentConnector {
  const definition = connector.definition.id;
  // Keyed by the function, not the name: a method replaced later (a test's spy) is wrapped anew.
  const wrapped = new WeakMap<object, unknown>();
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
      if (typeof property !== 'string' || !CALLS.has(property) || typeof value !== 'function' || WRAPPERS.has(value))
        return value;
      let fn = wrapped.get(value);
      if (!fn) {
        fn = timed(
          value as (...a: unknown[]) => Promise<unknown>,
          target,
          { definition, operation: property },
          (ms, result, status) => report({ definition, operation: property, ms, result, status }),
        );
        wrapped.set(value, fn);
      }
      return fn;
    },
  });
}

/** Functions this module made: never wrapped twice (a restored spy puts one back on the connector). */
const WRAPPERS = new WeakSet<object>();

function timed(
  method: (...a: unknown[]) => Promise<unknown>,
  target: object,
  call: { definition: string; operation: string },
  done: (ms: number, result: ConnectorCallResult, status: string | null) => void,
) {
  const fn = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      // The crash-safety test's hooks (a no-op unless a test armed them).
      const key = (args[0] as { idempotencyKey?: unknown } | undefined)?.idempotencyKey;
      const answer = (await withCallFaults(call.definition, call.operation, key, () => method.apply(target, args))) as {
        status?: unknown;
      } | null;
      done(performance.now() - started, 'ok', typeof answer?.status === 'string' ? answer.status : null);
      return answer;
    } catch (error) {
      done(performance.now() - started, error instanceof ConnectorError ? error.kind : 'error', null);
      throw error;
    }
  };
  WRAPPERS.add(fn);
  return fn;
}
