import type { Registry } from 'prom-client';
import type { CallFailure, CallSuccess } from '../../connectors/call.ts';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import type { BreakerVerdict, BreakerView } from '../transactions/routing/elimination.ts';
import { healthOf } from './circuit-outcome.ts';
import { CircuitMetrics } from './circuit-metrics.ts';
import * as repo from './circuit-breakers.repo.ts';
import {
  addTally,
  count,
  emptyTally,
  probes,
  stateAt,
  type CircuitRow,
  type CircuitSettings,
  type CircuitState,
  type Tally,
  type TransitionRecord,
} from './circuit-state.ts';

/**
 * The circuit breakers of this process (docs/routing.md, "Elimination: the circuit breaker"). The
 * authorization path only touches memory: `record` adds an outcome to this process's tally and
 * `view` reads the cached open circuits. Every `syncMs` (about a second) `sync` adds the tallies
 * to the shared rows under their row locks, where the transitions happen (so two processes cannot
 * both open or both close a circuit), then reloads the open circuits of every merchant account.
 */

export interface BreakerSettings extends CircuitSettings {
  enabled: boolean;
  syncMs: number;
}

export function breakerSettingsOf(config: Config): BreakerSettings {
  return {
    enabled: config.circuitBreakerEnabled,
    windowMs: config.circuitBreakerWindowSeconds * 1000,
    minCalls: config.circuitBreakerMinCalls,
    failureRate: config.circuitBreakerFailurePercent / 100,
    consecutive: config.circuitBreakerConsecutiveFailures,
    cooldownMs: config.circuitBreakerCooldownSeconds * 1000,
    probePercent: config.circuitBreakerProbePercent,
    syncMs: config.circuitBreakerSyncMs,
  };
}

/** An open circuit as this process caches it. */
export interface CachedCircuit {
  paymentServiceId: string;
  definitionId: string | null;
  openedAt: number | null;
  retryAt: number;
}

type Log = { warn(obj: object, msg?: string): void };

/**
 * Writes what a transition leaves besides the row (audit entry, webhook event), in the sync's
 * transaction: circuit-transitions.ts, passed in by the runtime (deps.ts) so that this class, a
 * member of `Deps`, imports no service.
 */
export type TransitionWriter = (tx: Tx, transition: TransitionRecord) => Promise<void>;

const keyOf = (merchantAccountId: string, paymentServiceId: string) => `${merchantAccountId} ${paymentServiceId}`;

export class CircuitBreakers {
  private tallies = new Map<string, { key: repo.CircuitKey; tally: Tally }>();
  /** Open circuits (half-open included) by merchant account, then payment service. */
  private open = new Map<string, Map<string, CachedCircuit>>();
  /** Half-open: the routing decisions of this process that saw the circuit, by circuit. */
  private decisions = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private writeTransition: TransitionWriter | null = null;
  private readonly metrics: CircuitMetrics;

  constructor(
    private readonly db: Db,
    readonly settings: BreakerSettings,
    registry: Registry,
    private readonly log: Log,
    /** Epoch milliseconds; the routing simulation and tests pass their own clock. */
    readonly now: () => number = Date.now,
  ) {
    this.metrics = new CircuitMetrics(registry, () => this.cachedStates());
  }

  /** Adds an authorization's outcome at `paymentServiceId` to this process's tally (memory only). */
  record(
    merchantAccountId: string,
    paymentServiceId: string,
    result: CallSuccess<AuthorizeOutcome> | CallFailure,
  ): void {
    if (!this.settings.enabled) return;
    const health = healthOf(result);
    if (!health) return;
    const key = keyOf(merchantAccountId, paymentServiceId);
    let entry = this.tallies.get(key);
    if (!entry) {
      entry = { key: { merchantAccountId, paymentServiceId }, tally: emptyTally() };
      this.tallies.set(key, entry);
    }
    count(entry.tally, health);
  }

  /**
   * The circuits of a merchant account's services for routing; null when none is open (the common
   * case costs one map lookup). `probe: false` (the dry run) reads without counting a decision.
   */
  view(merchantAccountId: string, options: { probe: boolean } = { probe: true }): BreakerView | null {
    if (!this.settings.enabled) return null;
    const circuits = this.open.get(merchantAccountId);
    if (!circuits || circuits.size === 0) return null;
    return {
      verdict: (paymentServiceId: string): BreakerVerdict => {
        const circuit = circuits.get(paymentServiceId);
        if (!circuit) return 'closed';
        if (stateAt({ state: 'open', retryAt: circuit.retryAt }, this.now()) === 'open') return 'open';
        if (!options.probe) return 'half_open';
        const key = keyOf(merchantAccountId, paymentServiceId);
        const n = (this.decisions.get(key) ?? 0) + 1;
        this.decisions.set(key, n);
        return probes(n, this.settings.probePercent) ? 'probe' : 'half_open';
      },
    };
  }

  /** The circuit of one service as this process last saw it. */
  stateOf(merchantAccountId: string, paymentServiceId: string): CircuitState {
    const circuit = this.open.get(merchantAccountId)?.get(paymentServiceId);
    return circuit ? stateAt({ state: 'open', retryAt: circuit.retryAt }, this.now()) : 'closed';
  }

  /** Starts the periodic sync; `writeTransition` records the transitions' audit entries and webhook events. */
  start(writeTransition: TransitionWriter): void {
    this.writeTransition = writeTransition;
    if (this.timer || !this.settings.enabled) return;
    // A failed sync is logged (syncOnce) and its counts wait for the next one.
    this.timer = setInterval(() => void this.sync().catch(() => undefined), this.settings.syncMs);
    this.timer.unref();
  }

  /**
   * Adds the tallies to the shared circuits and reloads the open ones. Calls run one after the
   * other; a failure is logged and its tallies are kept for the next sync.
   */
  sync(): Promise<void> {
    const run = this.chain.then(() => this.syncOnce());
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Stops the periodic sync after a last one (this process's counts are not lost on a clean stop). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.settings.enabled) await this.sync().catch(() => undefined);
  }

  private async syncOnce(): Promise<void> {
    const batch = this.tallies;
    this.tallies = new Map();
    try {
      const made = batch.size > 0 ? await this.flush([...batch.values()]) : [];
      for (const t of made) this.metrics.transition(t.definitionId, t.transition);
      await this.reload();
    } catch (error) {
      for (const [key, entry] of batch) this.restore(key, entry);
      this.log.warn({ err: error }, 'circuit breakers: sync failed; the counts wait for the next one');
      throw error;
    }
  }

  private async flush(entries: Array<{ key: repo.CircuitKey; tally: Tally }>): Promise<TransitionRecord[]> {
    const keys = entries.map((e) => e.key);
    const byKey = new Map(entries.map((e) => [keyOf(e.key.merchantAccountId, e.key.paymentServiceId), e.tally]));
    return withTransaction(this.db, async (tx) => {
      const made: TransitionRecord[] = [];
      await repo.ensureCircuits(tx, keys, new Date(this.now()));
      const rows = await repo.lockCircuits(tx, keys);
      // The clock is read under the locks: a transition is judged at the time it is written.
      const now = this.now();
      for (const row of rows) {
        const tally = byKey.get(keyOf(row.merchant_account_id, row.payment_service_id));
        if (!tally) continue;
        const { row: next, transition } = addTally(circuitOf(row), tally, now, this.settings);
        const key = { merchantAccountId: row.merchant_account_id, paymentServiceId: row.payment_service_id };
        await repo.updateCircuit(tx, key, { ...columnsOf(next), updated_at: new Date(now) });
        if (!transition) continue;
        const record: TransitionRecord = {
          ...key,
          displayName: row.display_name,
          definitionId: row.payment_service_definition_id,
          transition,
          circuit: next,
          at: now,
        };
        if (this.writeTransition) await this.writeTransition(tx, record);
        made.push(record);
      }
      return made;
    });
  }

  private async reload(): Promise<void> {
    const rows = await repo.openCircuits(this.db);
    const open = new Map<string, Map<string, CachedCircuit>>();
    const seen = new Set<string>();
    for (const row of rows) {
      let circuits = open.get(row.merchant_account_id);
      if (!circuits) open.set(row.merchant_account_id, (circuits = new Map()));
      circuits.set(row.payment_service_id, {
        paymentServiceId: row.payment_service_id,
        definitionId: row.payment_service_definition_id,
        openedAt: row.opened_at?.getTime() ?? null,
        retryAt: row.retry_at!.getTime(),
      });
      const key = keyOf(row.merchant_account_id, row.payment_service_id);
      // A circuit opened again starts its probing afresh (its retry time moved).
      if (stateAt({ state: 'open', retryAt: row.retry_at!.getTime() }, this.now()) === 'half_open') seen.add(key);
    }
    for (const key of this.decisions.keys()) if (!seen.has(key)) this.decisions.delete(key);
    this.open = open;
  }

  private restore(key: string, entry: { key: repo.CircuitKey; tally: Tally }): void {
    const current = this.tallies.get(key);
    if (!current) {
      this.tallies.set(key, entry);
      return;
    }
    // The older counts come first: the newer tally's trailing run and last outcome stand.
    const older = entry.tally;
    const newer = current.tally;
    current.tally = {
      calls: older.calls + newer.calls,
      failures: older.failures + newer.failures,
      trailingFailures: newer.sawSuccess ? newer.trailingFailures : older.trailingFailures + newer.trailingFailures,
      sawSuccess: older.sawSuccess || newer.sawSuccess,
      last: newer.last ?? older.last,
    };
  }

  private cachedStates(): Array<{ definitionId: string | null; state: CircuitState }> {
    const now = this.now();
    return [...this.open.values()].flatMap((circuits) =>
      [...circuits.values()].map((c) => ({
        definitionId: c.definitionId,
        state: stateAt({ state: 'open', retryAt: c.retryAt }, now),
      })),
    );
  }
}

function circuitOf(row: repo.CircuitWithService): CircuitRow {
  return {
    state: row.state,
    windowStartedAt: row.window_started_at.getTime(),
    calls: row.calls,
    failures: row.failures,
    previousCalls: row.previous_calls,
    previousFailures: row.previous_failures,
    consecutiveFailures: row.consecutive_failures,
    openedAt: row.opened_at?.getTime() ?? null,
    retryAt: row.retry_at?.getTime() ?? null,
    reason: row.reason,
  };
}

function columnsOf(c: CircuitRow) {
  const date = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    state: c.state,
    window_started_at: new Date(c.windowStartedAt),
    calls: c.calls,
    failures: c.failures,
    previous_calls: c.previousCalls,
    previous_failures: c.previousFailures,
    consecutive_failures: c.consecutiveFailures,
    opened_at: date(c.openedAt),
    retry_at: date(c.retryAt),
    reason: c.reason,
  };
}
