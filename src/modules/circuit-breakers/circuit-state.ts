/**
 * The circuit breaker of one payment service as a pure state machine (docs/routing.md,
 * "Elimination: the circuit breaker"). Times are epoch milliseconds passed in, never read here, so
 * tests and the routing simulation run it on their own clock.
 *
 * Stored states are `closed` and `open`; an open circuit is half-open from `retryAt` on, without a
 * write: the first outcome after `retryAt` closes it (a success) or opens it again (a failure).
 */

export interface CircuitSettings {
  /** Length of the sliding window (ms). */
  windowMs: number;
  /** Calls within the window before the failure share may open the circuit. */
  minCalls: number;
  /** Share of failures (0..1) at or above which the circuit opens. */
  failureRate: number;
  /** Failures in a row that open the circuit whatever the volume; 0: off. */
  consecutive: number;
  /** How long an open circuit stays open before it is probed (ms). */
  cooldownMs: number;
  /** Half-open: the percentage (1..100) of routing decisions that send the service a probe. */
  probePercent: number;
}

export interface CircuitRow {
  state: 'closed' | 'open';
  /** Start of the current fixed window; with the previous one it makes the sliding window. */
  windowStartedAt: number;
  calls: number;
  failures: number;
  previousCalls: number;
  previousFailures: number;
  consecutiveFailures: number;
  openedAt: number | null;
  /** Open: when it turns half-open. */
  retryAt: number | null;
  reason: string | null;
}

/** The outcomes of one process between two flushes, in the order they came. */
export interface Tally {
  calls: number;
  failures: number;
  /** Failures after the last success (all of them when there was no success). */
  trailingFailures: number;
  sawSuccess: boolean;
  /** The last outcome: what decides a half-open circuit. */
  last: 'success' | 'failure' | null;
}

export type CircuitState = 'closed' | 'open' | 'half_open';
export type Transition = 'opened' | 'reopened' | 'closed';

/** A transition made by a sync, with what its audit entry, event and metrics name. */
export interface TransitionRecord {
  merchantAccountId: string;
  paymentServiceId: string;
  displayName: string | null;
  definitionId: string | null;
  transition: Transition;
  /** The circuit after the transition. */
  circuit: CircuitRow;
  at: number;
}

export const emptyTally = (): Tally => ({ calls: 0, failures: 0, trailingFailures: 0, sawSuccess: false, last: null });

/** Adds one outcome to a process's tally. */
export function count(tally: Tally, outcome: 'success' | 'failure'): void {
  tally.calls += 1;
  tally.last = outcome;
  if (outcome === 'failure') {
    tally.failures += 1;
    tally.trailingFailures += 1;
  } else {
    tally.sawSuccess = true;
    tally.trailingFailures = 0;
  }
}

export const closedRow = (now: number): CircuitRow => ({
  state: 'closed',
  windowStartedAt: now,
  calls: 0,
  failures: 0,
  previousCalls: 0,
  previousFailures: 0,
  consecutiveFailures: 0,
  openedAt: null,
  retryAt: null,
  reason: null,
});

export function stateAt(row: Pick<CircuitRow, 'state' | 'retryAt'>, now: number): CircuitState {
  if (row.state === 'closed') return 'closed';
  return row.retryAt !== null && now >= row.retryAt ? 'half_open' : 'open';
}

/** The window moved on to `now`: the current counts become the previous ones (or vanish when older). */
function roll(row: CircuitRow, now: number, windowMs: number): CircuitRow {
  const elapsed = now - row.windowStartedAt;
  if (elapsed < windowMs) return row;
  const windows = Math.floor(elapsed / windowMs);
  return {
    ...row,
    windowStartedAt: row.windowStartedAt + windows * windowMs,
    previousCalls: windows === 1 ? row.calls : 0,
    previousFailures: windows === 1 ? row.failures : 0,
    calls: 0,
    failures: 0,
  };
}

/**
 * Calls and failures within the sliding window ending at `now`: the current fixed window's counts
 * plus the previous window's, weighted by the part of it the sliding window still covers.
 */
export function windowCounts(row: CircuitRow, now: number, windowMs: number): { calls: number; failures: number } {
  const rolled = roll(row, now, windowMs);
  const weight = Math.max(0, 1 - (now - rolled.windowStartedAt) / windowMs);
  return {
    calls: rolled.calls + rolled.previousCalls * weight,
    failures: rolled.failures + rolled.previousFailures * weight,
  };
}

function tripReason(row: CircuitRow, now: number, settings: CircuitSettings): string | null {
  const { calls, failures } = windowCounts(row, now, settings.windowMs);
  if (calls >= settings.minCalls && failures >= settings.failureRate * calls)
    return `${Math.round(failures)} of ${Math.round(calls)} calls failed within ${settings.windowMs / 1000} s`;
  if (settings.consecutive > 0 && row.consecutiveFailures >= settings.consecutive)
    return `${row.consecutiveFailures} calls failed in a row`;
  return null;
}

const opened = (now: number, settings: CircuitSettings, reason: string, openedAt = now): CircuitRow => ({
  ...closedRow(now),
  state: 'open',
  openedAt,
  retryAt: now + settings.cooldownMs,
  reason,
});

/**
 * Adds a process's tally at `now`. Closed: the counts join the window and the circuit opens when
 * the failure share or the run of failures passes the threshold. Open (cool-down): outcomes are
 * not counted (a service kept because it was the only eligible one). Half-open: the last outcome
 * decides, a success closes it and a failure opens it again for another cool-down.
 */
export function addTally(
  row: CircuitRow,
  tally: Tally,
  now: number,
  settings: CircuitSettings,
): { row: CircuitRow; transition: Transition | null } {
  if (tally.calls === 0) return { row, transition: null };
  const state = stateAt(row, now);
  if (state === 'open') return { row, transition: null };
  if (state === 'half_open') {
    if (tally.last === 'success') return { row: closedRow(now), transition: 'closed' };
    return {
      row: opened(now, settings, 'a probe failed', row.openedAt ?? now),
      transition: 'reopened',
    };
  }
  const rolled = roll(row, now, settings.windowMs);
  const next: CircuitRow = {
    ...rolled,
    calls: rolled.calls + tally.calls,
    failures: rolled.failures + tally.failures,
    consecutiveFailures: tally.sawSuccess ? tally.trailingFailures : rolled.consecutiveFailures + tally.failures,
  };
  const reason = tripReason(next, now, settings);
  if (reason) return { row: opened(now, settings, reason), transition: 'opened' };
  return { row: next, transition: null };
}

/**
 * Half-open probing of one process: whether the `n`-th routing decision (1-based) that finds the
 * circuit half-open sends a probe. The first does, then one in every 100/`percent`, so at most
 * ceil(n × percent / 100) of n decisions probe (integers: no rounding drift).
 */
export const probes = (n: number, percent: number): boolean =>
  Math.ceil((n * percent) / 100) > Math.ceil(((n - 1) * percent) / 100);
