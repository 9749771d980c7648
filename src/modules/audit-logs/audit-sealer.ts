import { nextTurn } from '../../db/session-lanes.ts';
import type { Executor } from '../../db/transaction.ts';
import { sealQueuedEntries, vacuumQueue } from './audit-chain.repo.ts';

/**
 * Entries linked per transaction: a batch takes milliseconds, and a backlog drains batch after batch.
 * Each account's share of a transaction is one row of audit_chain_batches (decision 0157).
 */
export const SEAL_BATCH = 5_000;
/**
 * The batch on embedded PGlite, where a batch's statement holds the process's only session and
 * every request waits behind it: 400 entries held it 46 to 130 ms in a benchmark (decision 0160).
 */
export const EMBEDDED_SEAL_BATCH = 200;
/** How long after its commit an entry is linked, at most (plus a batch's time). */
export const SEAL_PERIOD_MS = 1_000;

export interface AuditSealerOptions {
  periodMs?: number;
  batch?: number;
  /**
   * Embedded PGlite (no autovacuum; its hourly VACUUM is too rare for a queue): how often the
   * sealer vacuums the queue itself, whose dead rows each batch's index scan would step over.
   */
  vacuumQueueMs?: number;
  log?: { warn(obj: object, msg?: string): void };
}

/**
 * Links the audit entries every process commits into their accounts' hash chains (decision 0145):
 * every `periodMs`, batches of queued entries, each in one transaction holding the accounts' locks.
 * Every server process runs one; they share the work through those locks (an account another
 * process is sealing is skipped), so nothing here is state another process needs.
 */
export class AuditSealer {
  private timer: NodeJS.Timeout | null = null;
  /** One sealing at a time in this process: a tick does not start while another or a `sealNow` runs. */
  private running: Promise<unknown> = Promise.resolve();
  private busy = false;
  private readonly periodMs: number;
  private readonly batch: number;
  private vacuumedAt = Date.now();

  constructor(
    private readonly db: Executor,
    private readonly options: AuditSealerOptions = {},
  ) {
    this.periodMs = options.periodMs ?? SEAL_PERIOD_MS;
    this.batch = options.batch ?? SEAL_BATCH;
  }

  /** Seals every `periodMs` (the timer does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (!this.busy) void this.run(false).catch(() => undefined);
    }, this.periodMs);
    this.timer.unref();
  }

  /**
   * Links every entry committed before the call (and any committed meanwhile), waiting for
   * accounts another process is sealing: a chain read afterwards holds them. Returns how many
   * this call linked.
   */
  sealNow(): Promise<number> {
    return this.run(true);
  }

  /** Stops sealing every period (`sealNow` still seals). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Stops the timer and links what is queued (graceful shutdown). A failure is logged, not thrown:
   * the entries stay queued, and the next sealer of any process links them.
   */
  async close(): Promise<void> {
    this.stop();
    await this.sealNow().catch((error: unknown) => {
      this.options.log?.warn({ err: error }, 'audit entries could not be sealed on close; they stay queued');
    });
  }

  private run(wait: boolean): Promise<number> {
    const next = this.running.then(() => this.drain(wait));
    this.running = next.catch(() => undefined);
    return next;
  }

  /** Batch after batch until one is not full: a backlog (a database that was away) drains at once. */
  private async drain(wait: boolean): Promise<number> {
    this.busy = true;
    let total = 0;
    try {
      for (;;) {
        // A turn of the event loop between batches, for the requests that arrived (PGlite).
        if (total > 0) await nextTurn();
        const sealed = await sealQueuedEntries(this.db, this.batch, wait);
        total += sealed;
        if (sealed < this.batch) break;
      }
      const every = this.options.vacuumQueueMs;
      if (every !== undefined && total > 0 && Date.now() - this.vacuumedAt >= every) {
        this.vacuumedAt = Date.now();
        await vacuumQueue(this.db);
      }
      return total;
    } catch (error) {
      if (!wait) this.options.log?.warn({ err: error }, 'audit entries could not be sealed; the next run seals them');
      throw error;
    } finally {
      this.busy = false;
    }
  }
}
