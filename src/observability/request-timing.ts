import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Time one request spent waiting on the database and on payment connectors, for its
 * `Server-Timing` header and its access log line. Kept in an AsyncLocalStorage entered by the HTTP
 * hooks (http/server-timing.ts), so the database driver and the connector wrapper add to it without
 * a parameter threaded through every service. Work outside a request (jobs) has no store and adds
 * nothing. The hot path pays one `getStore()` and two additions per statement.
 */
export interface RequestTiming {
  /** Sum of statement durations (BEGIN and COMMIT included), in milliseconds. */
  dbMs: number;
  dbStatements: number;
  /** Sum of connector call durations, in milliseconds. */
  connectorMs: number;
  connectorCalls: number;
}

const storage = new AsyncLocalStorage<RequestTiming>();

export function newRequestTiming(): RequestTiming {
  return { dbMs: 0, dbStatements: 0, connectorMs: 0, connectorCalls: 0 };
}

/** Runs `fn` (the rest of a request's processing) with `timing` as the current request's store. */
export function runWithTiming<T>(timing: RequestTiming, fn: () => T): T {
  return storage.run(timing, fn);
}

/** Runs `fn` outside any request's timing (work done for several requests at once). */
export function withoutRequest<T>(fn: () => T): T {
  return storage.exit(fn);
}

export function addDbTime(ms: number): void {
  const timing = storage.getStore();
  if (!timing) return;
  timing.dbMs += ms;
  timing.dbStatements += 1;
}

export function addConnectorTime(ms: number): void {
  const timing = storage.getStore();
  if (!timing) return;
  timing.connectorMs += ms;
  timing.connectorCalls += 1;
}

/**
 * The `Server-Timing` value (W3C Server Timing): `db` always, `connector` when the request called
 * a payment connector, `app` for the whole time spent in the server so far. Durations in
 * milliseconds with two decimals; statements and calls counted in the description.
 */
export function serverTimingHeader(timing: RequestTiming, totalMs: number): string {
  const parts = [`db;dur=${timing.dbMs.toFixed(2)};desc="${timing.dbStatements} statements"`];
  if (timing.connectorCalls > 0)
    parts.push(`connector;dur=${timing.connectorMs.toFixed(2)};desc="${timing.connectorCalls} calls"`);
  parts.push(`app;dur=${totalMs.toFixed(2)}`);
  return parts.join(', ');
}
