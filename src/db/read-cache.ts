import type { Executor } from './executor.ts';
import { SharedLoad } from './shared-load.ts';

/** A cached value: frozen all the way down (arrays and plain objects), so no caller can change what others read. */
export type Frozen<T> = T extends Date
  ? T
  : T extends ReadonlyArray<infer E>
    ? ReadonlyArray<Frozen<E>>
    : T extends object
      ? { readonly [K in keyof T]: Frozen<T[K]> }
      : T;

interface Entry<T> {
  value: SharedLoad<Frozen<T>>;
  /** Which load this is: a load keeps its result only while its entry is still the key's. */
  generation: number;
}

export interface ReadCacheOptions {
  /** Keys kept; past it the least recently used goes. */
  maxEntries?: number;
  /** Serve from the start (tests). A cache fed by a change feed waits for it (`serve`). */
  serving?: boolean;
}

/**
 * Per-key values read from the database and kept until told they changed (`invalidate`, called
 * after a local commit and by the change feed, src/db/change-feed.ts, when another process
 * commits). Concurrent misses of a key share one load; a failed load is not kept; the map is
 * bounded (least recently used first out).
 *
 * An invalidation that arrives while a key is loading removes that load's entry: the load may have
 * read the rows before the change, so its result goes to the callers already waiting for it (they
 * asked before the change was known) but is never kept. Each load carries a generation number and
 * keeps its result only while the key's entry still carries that number.
 *
 * While not serving (the change feed is down: a change could go unnoticed), every call loads from
 * the database and nothing is kept. Correctness over speed.
 */
export class ReadCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly maxEntries: number;
  private generation = 0;
  private serving: boolean;

  constructor(options: ReadCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.serving = options.serving ?? false;
  }

  /**
   * The value of `key`, loaded by `load` on a miss (or every time while not serving). `db`: the
   * executor `load` reads with, when it may be a database transaction. Such a caller waits only
   * for a load that has ended (`SharedLoad`): with one under way on another executor, which may be
   * waiting for the session the transaction holds, it runs its own `load`, which is not kept.
   */
  get(key: string, load: () => Promise<T>, db?: Executor): Promise<Frozen<T>> {
    if (!this.serving) return load().then(deepFreeze);
    const hit = this.entries.get(key);
    if (hit) {
      if (db && !hit.value.awaitableBy(db)) return load().then(deepFreeze);
      // Most recently used last: the bound evicts from the front.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value.promise;
    }
    const entry: Entry<T> = { value: new SharedLoad(load().then(deepFreeze)), generation: ++this.generation };
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    entry.value.promise.catch(() => {
      if (this.entries.get(key)?.generation === entry.generation) this.entries.delete(key);
    });
    return entry.value.promise;
  }

  /** Forgets `key` (and any load of it under way). */
  invalidate(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets every key. */
  clear(): void {
    this.entries.clear();
  }

  /**
   * Starts or stops serving. Either way everything kept so far is forgotten: on stop it may go
   * stale unnoticed, on start it may already be (changes made while stopped were not seen).
   */
  serve(on: boolean): void {
    this.serving = on;
    this.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  get isServing(): boolean {
    return this.serving;
  }
}

/** Freezes arrays and plain objects in place, recursively (Dates, Buffers and other class instances are left as they are). */
function deepFreeze<V>(value: V): Frozen<V> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    const proto = Object.getPrototypeOf(value);
    if (Array.isArray(value) || proto === Object.prototype || proto === null) {
      Object.freeze(value);
      for (const child of Object.values(value)) deepFreeze(child);
    }
  }
  return value as Frozen<V>;
}
