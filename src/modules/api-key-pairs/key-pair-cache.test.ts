import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../../test/helpers/build-test-app.ts';
import { createTestKeyPair, type TestKeyPair } from '../../../test/helpers/tokens.ts';
import type { Executor } from '../../db/transaction.ts';
import type { Runtime } from '../../deps.ts';
import { findKeyPairByThumbprint } from './api-key-pairs.repo.ts';
import { KeyPairCache } from './key-pair-cache.ts';

let runtime: Runtime;
let dispose: () => Promise<void>;
let pair: TestKeyPair;
beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
  pair = await createTestKeyPair(runtime.deps);
});
afterAll(async () => dispose?.());

/** The real read by thumbprint, counted; while `hold` is on, its answer is held back until `release`. */
function countingFind() {
  let reads = 0;
  let gate: Promise<void> | null = null;
  let release = () => undefined as void;
  let didRead = () => undefined as void;
  return {
    find: async (db: Executor, thumbprint: string) => {
      reads++;
      const held = gate;
      const row = await findKeyPairByThumbprint(db, thumbprint);
      didRead();
      if (held) await held;
      return row;
    },
    reads: () => reads,
    /** Holds the next answers back; resolves once the next read has its row. */
    hold(): Promise<void> {
      gate = new Promise<void>((resolve) => (release = resolve));
      return new Promise<void>((resolve) => (didRead = resolve));
    },
    release() {
      gate = null;
      release();
    },
  };
}

describe('KeyPairCache', () => {
  it('shares one load between concurrent misses and between the requests that find it expired', async () => {
    let now = 1_000_000;
    const counting = countingFind();
    const cache = new KeyPairCache(runtime.deps.db, 5_000, 100, () => now, counting.find);
    const first = await Promise.all(Array.from({ length: 32 }, () => cache.get(pair.thumbprint)));
    expect(counting.reads()).toBe(1);
    expect(new Set(first).size).toBe(1);
    expect(first[0]).toMatchObject({ id: pair.id, thumbprint: pair.thumbprint, active: true });
    now += 4_999;
    await cache.get(pair.thumbprint);
    expect(counting.reads()).toBe(1);
    now += 2;
    const again = await Promise.all(Array.from({ length: 32 }, () => cache.get(pair.thumbprint)));
    expect(counting.reads()).toBe(2);
    // The same public key: the reload keeps the imported key object.
    expect(again[0]!.key).toBe(first[0]!.key);
  });

  it('sees a revocation at the next reload, and an invalidate during a load is not undone by it', async () => {
    let now = 2_000_000;
    const counting = countingFind();
    const cache = new KeyPairCache(runtime.deps.db, 5_000, 100, () => now, counting.find);
    const other = await createTestKeyPair(runtime.deps);
    expect((await cache.get(other.thumbprint))!.active).toBe(true);
    // A load that read the row before the revocation, and was still under way when this process
    // was told (invalidate): its callers asked before and get what it read, but it is not kept.
    now += 6_000;
    const read = counting.hold();
    const before = cache.get(other.thumbprint);
    await read;
    await sql`update api_key_pairs set active = false where thumbprint = ${other.thumbprint}`.execute(runtime.deps.db);
    cache.invalidate(other.thumbprint);
    counting.release();
    expect((await before)!.active).toBe(true);
    expect((await cache.get(other.thumbprint))!.active).toBe(false);
    expect(counting.reads()).toBe(3);
  });

  it('remembers an unknown kid for the TTL, and forgets a failed load', async () => {
    const now = 3_000_000;
    const counting = countingFind();
    const cache = new KeyPairCache(runtime.deps.db, 5_000, 100, () => now, counting.find);
    expect(await Promise.all([cache.get('no-such-kid'), cache.get('no-such-kid')])).toEqual([null, null]);
    expect(await cache.get('no-such-kid')).toBeNull();
    expect(counting.reads()).toBe(1);
    let fail = true;
    const flaky = async (db: Executor, thumbprint: string) => {
      if (fail) throw new Error('down');
      return findKeyPairByThumbprint(db, thumbprint);
    };
    const cacheOfFlaky = new KeyPairCache(runtime.deps.db, 5_000, 100, () => now, flaky);
    await expect(cacheOfFlaky.get(pair.thumbprint)).rejects.toThrow('down');
    fail = false;
    expect(await cacheOfFlaky.get(pair.thumbprint)).toMatchObject({ id: pair.id, active: true });
  });
});
