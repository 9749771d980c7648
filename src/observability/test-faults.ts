import { appendFileSync } from 'node:fs';

/**
 * Test-only fault injection for the crash-safety proof (test/reliability/crash-steps.reliability.test.ts,
 * docs/reliability.md): `TEST_CRASH_POINT` names one step of one operation, and the process kills
 * itself with SIGKILL when a request reaches it, exactly as `kill -9` would at that moment;
 * `TEST_CONNECTOR_CALL_LOG` names a file that gets one line per provider call, written before the
 * call, so the test counts the calls that reached the provider across processes it killed;
 * `TEST_IDEMPOTENCY_LEASE_MS` shortens the idempotency claim's lease (http/idempotency.ts, 120 s)
 * so a retry takes over a dead process's claim without waiting two minutes. The configuration
 * refuses all three in production (config.ts); unset, every hook is one comparison.
 */

/** The steps of a money-moving request, in order: its record is committed before `before-call`. */
export const CRASH_STEPS = ['before-call', 'after-call', 'after-answer'] as const;
export type CrashStep = (typeof CRASH_STEPS)[number];

export interface CrashPoint {
  step: CrashStep;
  /** The connector method (`refund`, `redeem`, ...) for the call steps; the operationId for `after-answer`. */
  name: string;
}

export interface TestFaults {
  crashPoint: CrashPoint | null;
  connectorCallLog: string | null;
  idempotencyLeaseMs: number | null;
}

let armed: TestFaults = { crashPoint: null, connectorCallLog: null, idempotencyLeaseMs: null };

/** Set once by the process from its configuration (deps.ts). */
export function armTestFaults(faults: TestFaults): void {
  armed = faults;
}

/** `<step>:<name>`, e.g. `before-call:refund` or `after-answer:createTransactionRefund`; null when malformed. */
export function parseCrashPoint(value: string): CrashPoint | null {
  const colon = value.indexOf(':');
  const step = value.slice(0, colon) as CrashStep;
  const name = value.slice(colon + 1);
  return colon > 0 && CRASH_STEPS.includes(step) && /^[A-Za-z-]{1,64}$/.test(name) ? { step, name } : null;
}

/** Kills the process at once (no handler, no flush) when `step` of `name` is the armed point. */
export function crashPoint(step: CrashStep, name: string): void {
  const point = armed.crashPoint;
  if (point && point.step === step && point.name === name) process.kill(process.pid, 'SIGKILL');
}

/** Appends `<connector> <method> <idempotency key>` to the call log, synchronously (it must survive a SIGKILL right after). */
export function logConnectorCall(connector: string, method: string, idempotencyKey: unknown): void {
  if (armed.connectorCallLog)
    appendFileSync(
      armed.connectorCallLog,
      `${connector} ${method} ${typeof idempotencyKey === 'string' ? idempotencyKey : '-'}\n`,
    );
}

/**
 * One provider call with the hooks around it: logged, then `before-call`, the call, `after-call`
 * (the provider has acted; the answer is not recorded yet).
 */
export async function withCallFaults<T>(
  connector: string,
  method: string,
  idempotencyKey: unknown,
  call: () => Promise<T>,
): Promise<T> {
  if (!armed.crashPoint && !armed.connectorCallLog) return call();
  crashPoint('before-call', method);
  logConnectorCall(connector, method, idempotencyKey);
  const answer = await call();
  crashPoint('after-call', method);
  return answer;
}

/**
 * `connector` with its provider calls run through `withCallFaults`, for connectors outside the
 * registry (gift cards); `methods` maps a method to the name its steps go by (`redeem` →
 * `giftCardRedeem`, apart from a card connector's `refund`).
 */
export function withFaultHooks<T extends object>(
  connector: T,
  id: string,
  methods: Readonly<Record<string, string>>,
): T {
  return new Proxy(connector, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      const name = typeof property === 'string' && Object.hasOwn(methods, property) ? methods[property]! : null;
      if (name === null || typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        withCallFaults(id, name, (args[0] as { idempotencyKey?: unknown } | undefined)?.idempotencyKey, () =>
          (value as (...a: unknown[]) => Promise<unknown>).apply(target, args),
        );
    },
  });
}
