import type { Executor } from './executor.ts';

/**
 * A load that concurrent callers of a cache share (a data key's unwrapping, an account's rules),
 * and whether it has ended. A database transaction must not wait for one still under way that it
 * did not start: the load may be waiting for the very session (PGlite has one) or connection (a
 * pool whose connections such transactions all hold) the transaction holds, and neither would
 * end. Such a caller loads on its own transaction instead (`awaitableBy`).
 */
export class SharedLoad<T> {
  private ended = false;

  constructor(readonly promise: Promise<T>) {
    const end = () => {
      this.ended = true;
    };
    promise.then(end, end);
  }

  /** Whether the load has ended, with a value or an error. */
  get settled(): boolean {
    return this.ended;
  }

  /** Whether a caller on `db` may wait for this load: outside a transaction always, inside one only once it has ended. */
  awaitableBy(db: Executor): boolean {
    return this.ended || !db.isTransaction;
  }
}
