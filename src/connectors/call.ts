import { AppError } from '../errors/app-error.ts';
import { ConnectorError } from './connector.ts';

/**
 * The one place a connector call is time-bounded and its failure classified (STYLE E5). Every
 * caller goes through `callConnector` with its own failure mapping: the transaction engine and
 * payouts keep the failure as an unknown outcome (`unknownOutcome`), the verify/session endpoints
 * turn it into 502/504 (`apiError`).
 */

/**
 * How long a connector call may take before its outcome is treated as unknown. Connectors set
 * tighter HTTP timeouts of their own; this bound also catches a connector that never settles.
 */
export const CONNECTOR_TIMEOUT_MS = 30_000;

export interface CallSuccess<T> {
  ok: true;
  value: T;
  ms: number;
}

/** No answer: `timeout` means the outcome is unknown (never a decline); see `ConnectorError`. */
export interface CallFailure {
  ok: false;
  kind: ConnectorError['kind'];
  message: string;
  ms: number;
}

/**
 * The result a call is recorded with when its request died (or failed) before recording the
 * provider's answer, and a retry resumes it: no answer, an unknown outcome (as a timeout), so the
 * attempt is left to reconciliation, which asks the provider; the retry never calls it again.
 */
export const UNANSWERED: CallFailure = {
  ok: false,
  kind: 'timeout',
  message: 'no answer was recorded: the request that made this call ended first',
  ms: 0,
};

/** A failure with what caused it, for the caller's log or rethrow; never for an answer. */
export interface ClassifiedCallFailure extends CallFailure {
  cause: unknown;
  /**
   * The connector threw something other than a `ConnectorError` (a bug). It is classified
   * `timeout`: the error may have come after the provider acted.
   */
  unexpected: boolean;
}

export type BoundedCallResult<T> = CallSuccess<T> | ClassifiedCallFailure;

/**
 * Runs one connector call, bounded at `timeoutMs`. Never throws. The call itself is not
 * cancelled on timeout (a connector has no abort signal): its late answer is dropped.
 */
export async function boundedCall<T>(
  fn: () => Promise<T>,
  options: { timeoutMs?: number } = {},
): Promise<BoundedCallResult<T>> {
  const timeoutMs = options.timeoutMs ?? CONNECTOR_TIMEOUT_MS;
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectorError('timeout', `no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    // Promise.race subscribes to the call, so a rejection after the timeout is not left unhandled.
    const value = await Promise.race([fn(), timeout]);
    return { ok: true, value, ms: Date.now() - started };
  } catch (error) {
    const ms = Date.now() - started;
    if (error instanceof ConnectorError)
      return { ok: false, kind: error.kind, message: error.message, ms, cause: error, unexpected: false };
    return { ok: false, kind: 'timeout', message: 'unexpected connector error', ms, cause: error, unexpected: true };
  } finally {
    clearTimeout(timer);
  }
}

/** How one caller turns a failed call into its own result (or throws). */
export type FailureMapping<R> = (failure: ClassifiedCallFailure) => R;

type WarnLog = { warn(obj: object, msg?: string): void };

/**
 * The caller's mapping for calls whose failure is an outcome to record (transactions, payouts): a
 * `timeout` or an unexpected error is unknown, never a decline. An unexpected error is logged with
 * `context`; the cause stays out of the result, which ends up in events and logs.
 */
export function unknownOutcome(log: WarnLog, context: Record<string, unknown> = {}): FailureMapping<CallFailure> {
  return (failure) => {
    if (failure.unexpected)
      log.warn(
        { ...context, err: failure.cause },
        'connector call threw an unexpected error; its outcome is treated as unknown',
      );
    return { ok: false, kind: failure.kind, message: failure.message, ms: failure.ms };
  };
}

/**
 * The caller's mapping for calls answered straight to the API client (credential verification,
 * sessions): a timeout is 504 (the outcome is unknown), any other `ConnectorError` 502. The
 * provider's own message stays in the log (as the cause), never in the answer; a connector bug is
 * rethrown as it was (500).
 */
export const apiError: FailureMapping<never> = (failure) => {
  if (failure.unexpected) throw failure.cause;
  throw failure.kind === 'timeout'
    ? new AppError('gateway_timeout', 'The payment service did not answer in time', { cause: failure.cause })
    : new AppError('bad_gateway', 'The payment service could not process the request', { cause: failure.cause });
};

/** Runs one connector call bounded at 30 s (`boundedCall`); a failure goes through the caller's mapping. */
export async function callConnector<T, R>(
  fn: () => Promise<T>,
  onFailure: FailureMapping<R>,
  options: { timeoutMs?: number } = {},
): Promise<CallSuccess<T> | R> {
  const result = await boundedCall(fn, options);
  return result.ok ? result : onFailure(result);
}
