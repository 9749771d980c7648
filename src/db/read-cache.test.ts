import { describe, expect, it } from 'vitest';
import type { Executor } from './executor.ts';
import { ReadCache } from './read-cache.ts';

/** A load the test finishes by hand, counting how often it was started. */
function manualLoads<T>() {
  const pending: Array<{ resolve: (value: T) => void; reject: (error: Error) => void }> = [];
  const load = () => new Promise<T>((resolve, reject) => pending.push({ resolve, reject }));
  return { load, pending };
}

const rows = (...ids: string[]) => ids.map((id) => ({ id, tags: ['a'], created_at: new Date(0) }));

describe('ReadCache', () => {
  it('shares one load among concurrent misses of a key, then serves it without loading', async () => {
    const cache = new ReadCache<string[]>({ serving: true });
    const { load, pending } = manualLoads<string[]>();
    const first = cache.get('m1', load);
    const second = cache.get('m1', load);
    expect(pending).toHaveLength(1);
    pending[0]!.resolve(['s1']);
    expect(await first).toEqual(['s1']);
    expect(await second).toBe(await first);
    expect(await cache.get('m1', () => Promise.reject(new Error('not loaded again')))).toEqual(['s1']);
    // Another key loads on its own.
    void cache.get('m2', load);
    expect(pending).toHaveLength(2);
  });

  it('lets a caller inside a transaction load on its own while a load of the key is under way, and share one that has ended', async () => {
    const cache = new ReadCache<string[]>({ serving: true });
    const { load, pending } = manualLoads<string[]>();
    const pool = { isTransaction: false } as Executor;
    const tx = { isTransaction: true } as Executor;
    const outside = cache.get('m1', load, pool);
    // The pool's load may be waiting for the session the transaction holds: not waited for.
    const inside = cache.get('m1', () => Promise.resolve(['own']), tx);
    expect(await inside).toEqual(['own']);
    expect(pending).toHaveLength(1);
    // Another pool caller still shares the pool's load.
    const second = cache.get('m1', load, pool);
    expect(pending).toHaveLength(1);
    pending[0]!.resolve(['s1']);
    expect(await outside).toEqual(['s1']);
    expect(await second).toBe(await outside);
    // Ended: the transaction's caller reads what is kept, without loading.
    expect(await cache.get('m1', () => Promise.reject(new Error('not loaded again')), tx)).toEqual(['s1']);
  });

  it('does not keep a failed load: the waiting callers get the error, the next call loads again', async () => {
    const cache = new ReadCache<string[]>({ serving: true });
    const { load, pending } = manualLoads<string[]>();
    const first = cache.get('m1', load);
    const second = cache.get('m1', load);
    pending[0]!.reject(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await expect(second).rejects.toThrow('connection lost');
    expect(cache.size).toBe(0);
    expect(await cache.get('m1', async () => ['s1'])).toEqual(['s1']);
  });

  it('does not keep a load that an invalidation overtook (it may have read the rows before the change)', async () => {
    const cache = new ReadCache<string[]>({ serving: true });
    const { load, pending } = manualLoads<string[]>();
    const early = cache.get('m1', load);
    cache.invalidate('m1');
    // Asked after the invalidation: its own load, not the one that may hold the old rows.
    const late = cache.get('m1', load);
    expect(pending).toHaveLength(2);
    pending[1]!.resolve(['new']);
    pending[0]!.resolve(['old']);
    expect(await early).toEqual(['old']);
    expect(await late).toEqual(['new']);
    expect(await cache.get('m1', () => Promise.reject(new Error('not loaded again')))).toEqual(['new']);
  });

  it('does not keep a load that clear() overtook, nor let its failure remove the newer entry', async () => {
    const cache = new ReadCache<string[]>({ serving: true });
    const { load, pending } = manualLoads<string[]>();
    const early = cache.get('m1', load);
    cache.clear();
    const late = cache.get('m1', load);
    pending[0]!.reject(new Error('old load failed'));
    await expect(early).rejects.toThrow('old load failed');
    pending[1]!.resolve(['new']);
    expect(await late).toEqual(['new']);
    expect(cache.size).toBe(1);
  });

  it('keeps at most maxEntries keys, dropping the least recently used', async () => {
    const cache = new ReadCache<string>({ serving: true, maxEntries: 2 });
    const loads: string[] = [];
    const get = (key: string) =>
      cache.get(key, async () => {
        loads.push(key);
        return key;
      });
    await get('a');
    await get('b');
    await get('a'); // a is now the most recently used
    await get('c'); // evicts b
    expect(cache.size).toBe(2);
    await get('a');
    await get('c');
    expect(loads).toEqual(['a', 'b', 'c']);
    await get('b');
    expect(loads).toEqual(['a', 'b', 'c', 'b']);
  });

  it('freezes what it hands out, rows, arrays in rows and the list, so no caller changes what others read', async () => {
    const cache = new ReadCache<ReturnType<typeof rows>>({ serving: true });
    const list = await cache.get('m1', async () => rows('s1', 's2'));
    expect(Object.isFrozen(list)).toBe(true);
    expect(Object.isFrozen(list[0])).toBe(true);
    expect(Object.isFrozen(list[0]!.tags)).toBe(true);
    expect(() => (list as Array<unknown>).push({})).toThrow(TypeError);
    expect(() => ((list[0] as { id: string }).id = 'changed')).toThrow(TypeError);
    expect(() => (list[0]!.tags as string[]).push('b')).toThrow(TypeError);
    // Dates are not plain objects: left as they are.
    expect(list[0]!.created_at).toBeInstanceOf(Date);
  });

  it('while not serving, loads every time and keeps nothing; starting to serve begins empty', async () => {
    const cache = new ReadCache<number>();
    let loads = 0;
    const get = () => cache.get('m1', async () => ++loads);
    expect(await get()).toBe(1);
    expect(await get()).toBe(2);
    expect(cache.size).toBe(0);
    cache.serve(true);
    expect(await get()).toBe(3);
    expect(await get()).toBe(3);
    cache.serve(false);
    expect(cache.size).toBe(0);
    expect(await get()).toBe(4);
  });

  it('does not keep a load that began before it stopped serving', async () => {
    const cache = new ReadCache<string>({ serving: true });
    const { load, pending } = manualLoads<string>();
    const early = cache.get('m1', load);
    cache.serve(false);
    cache.serve(true);
    pending[0]!.resolve('old');
    expect(await early).toBe('old');
    expect(await cache.get('m1', async () => 'new')).toBe('new');
  });
});
