import { describe, expect, it } from 'vitest';
import { GroupedCalls } from './grouped-calls.ts';

/** A group runner that records each run's items and answers each item doubled (odd items fail when asked). */
function doubling(options: { failOdd?: boolean; throwing?: boolean } = {}) {
  const runs: number[][] = [];
  const grouped = new GroupedCalls<number, number>(async (items) => {
    runs.push(items);
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (options.throwing) throw new Error('the run failed');
    return items.map(
      (n): PromiseSettledResult<number> =>
        options.failOdd && n % 2 === 1
          ? { status: 'rejected', reason: new Error(`odd ${n}`) }
          : { status: 'fulfilled', value: n * 2 },
    );
  }, 3);
  return { runs, grouped };
}

describe('happy', () => {
  it('runs the calls of one turn together, and those made during a run in the next', async () => {
    const { runs, grouped } = doubling();
    const first = [grouped.call(1), grouped.call(2)];
    await new Promise((resolve) => setImmediate(resolve));
    const second = [grouped.call(3), grouped.call(4)];
    expect(await Promise.all([...first, ...second])).toEqual([2, 4, 6, 8]);
    expect(runs).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('puts at most maxSize items in a run', async () => {
    const { runs, grouped } = doubling();
    expect(await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => grouped.call(n)))).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(runs).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });
});

describe('errors', () => {
  it('fails only the items the run failed', async () => {
    const { grouped } = doubling({ failOdd: true });
    const results = await Promise.allSettled([1, 2, 3].map((n) => grouped.call(n)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'rejected']);
  });

  it('fails every item of a run that throws, and runs the next calls', async () => {
    const { runs, grouped } = doubling({ throwing: true });
    const results = await Promise.allSettled([1, 2].map((n) => grouped.call(n)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    await expect(grouped.call(5)).rejects.toThrow('the run failed');
    expect(runs).toEqual([[1, 2], [5]]);
  });
});
