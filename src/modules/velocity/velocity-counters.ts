import type { Executor } from '../../db/transaction.ts';
import type { CurrentAttempt, VelocityMeasureSpec, VelocityRecord } from './velocity-window.ts';

/**
 * The velocity counts every process shares through the database (docs/risk.md, "Velocity
 * limits"; decisions 0136, 0142, 0146), kept off the authorization's path: `record` and `count`
 * touch memory only; the counts reach the database in batches, in the background. Two
 * implementations: every process on PostgreSQL writes its counts to velocity_counts every second and
 * reads the others' (velocity-shared-counters.ts); embedded PGlite's only process journals them every
 * 10 seconds and reads nothing back (velocity-sole-writer.ts). create-velocity-counters.ts chooses.
 */
export interface VelocityCounters {
  /** Starts syncing in the background (the timer does not keep the process alive). */
  start(): void;
  /**
   * Makes sure this process holds the merchant account's cells of the last `horizonMinutes`. The
   * first call reads them (`db`: a caller inside a database transaction passes it); a longer
   * horizon later reads only the older buckets it adds.
   */
  prepare(merchantAccountId: string, horizonMinutes: number, db?: Executor): Promise<void>;
  /** The measure of one key over the window ending now, `current` included. Memory only. */
  count(merchantAccountId: string, keyMac: string, spec: VelocityMeasureSpec, current: CurrentAttempt | null): number;
  /** Counts an attempt (or a decline) under each of the keys. Memory only. */
  record(merchantAccountId: string, keyMacs: readonly string[], entry: VelocityRecord): void;
  /** One background write (and, shared, read) now. */
  sync(): Promise<void>;
  /** Writes every count now: nothing is left only in memory. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (graceful shutdown). */
  close(): Promise<void>;
}

export interface VelocityCountersOptions {
  /** The only process writing the database (embedded PGlite): no reads back, a write every 10 s by default. */
  soleWriter?: boolean;
  syncMs?: number;
  /** Shared counters: how far before the previous read of other processes' changes the next one starts. */
  overlapMs?: number;
  now?: () => number;
  log?: { warn(obj: object, msg?: string): void };
}

/** How often the copies drop buckets past their horizon (buckets are a minute long). */
export const PRUNE_MS = 60_000;
/** A sole writer's write period: what a process that dies without closing can lose (decision 0142). */
export const SOLE_WRITER_SYNC_MS = 10_000;
