import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who waits first for PGlite's one session (pglite-dialect.ts). Background work (the job queue's
 * polls and jobs, the audit sealer, the velocity, routing-statistics and circuit-breaker flushes)
 * is started inside `inBackground`, so every timer and promise it creates carries the mark, and
 * its statements wait behind the requests' during a burst instead of taking turns with them. A
 * background waiter still gets the session once it has waited `maxBackgroundWaitMs`, so a
 * sustained load delays background work and never stops it. PostgreSQL has a pool and its own
 * scheduler: the mark changes nothing there.
 */
const lane = new AsyncLocalStorage<'background'>();

/** Runs `fn`, and everything it starts, as background work. */
export function inBackground<T>(fn: () => T): T {
  return lane.run('background', fn);
}

export function isBackground(): boolean {
  return lane.getStore() === 'background';
}

/**
 * A turn of the event loop. PGlite answers without I/O (it runs in this thread), so a chain of its
 * statements runs on promise callbacks alone, and requests that arrive meanwhile are not even read
 * until it ends: background work that runs several statements in a row takes one between them, so
 * those requests are read and queue for the session first.
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

interface Waiter {
  grant: () => void;
  since: number;
}

/**
 * A one-holder lock with two FIFO lanes: a foreground waiter goes before any background one,
 * except a background waiter that has waited `maxBackgroundWaitMs` or more, which goes next.
 */
export class SessionLanes {
  private held = false;
  private readonly foreground: Waiter[] = [];
  private readonly background: Waiter[] = [];

  constructor(
    private readonly maxBackgroundWaitMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get busy(): boolean {
    return this.held;
  }

  get waiting(): number {
    return this.foreground.length + this.background.length;
  }

  /** Resolves when the caller holds the session; `background` picks its lane. */
  acquire(background: boolean): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise<void>((grant) =>
      (background ? this.background : this.foreground).push({ grant, since: this.now() }),
    );
  }

  /** Hands the session to the next waiter, or frees it. */
  release(): void {
    const next = this.next();
    if (next) next.grant();
    else this.held = false;
  }

  private next(): Waiter | undefined {
    const oldest = this.background[0];
    if (oldest && (this.foreground.length === 0 || this.now() - oldest.since >= this.maxBackgroundWaitMs))
      return this.background.shift();
    return this.foreground.shift();
  }
}
