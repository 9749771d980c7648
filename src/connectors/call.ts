import { ConnectorError } from './connector.ts';

/**
 * The one place a connector call is time-bounded and its failure classified (STYLE E5). Callers
 * map the result their own way: the transaction engine onto attempt outcomes, the
 * verify/session endpoints onto 502/504.
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
export async function boundedCall<T>(fn: () => Promise<T>, options: { timeoutMs?: number } = {}): Promise<BoundedCallResult<T>> {
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
    if (error instanceof ConnectorError) return { ok: false, kind: error.kind, message: error.message, ms, cause: error, unexpected: false };
    return { ok: false, kind: 'timeout', message: 'unexpected connector error', ms, cause: error, unexpected: true };
  } finally {
    clearTimeout(timer);
  }
}
