import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseBySuccessRate, type CountsOf } from './chooser.ts';
import type { Counts } from './sliding-window.ts';

type Answers = Pick<Counts, 'successes' | 'failures'> & { errors?: number };

const KEYS = ['scheme=visa,currency=USD', 'currency=USD', '*'];
const params = { minSamples: 20, explorationPercent: 10, windowMinutes: 60 };
const table =
  (counts: Record<string, Record<string, Answers>>): CountsOf =>
  (id, key) => {
    const c = counts[id]?.[key];
    return c ? { errors: 0, ...c } : undefined;
  };
/** No recent call anywhere: every availability is 1. */
const NONE: CountsOf = () => undefined;

describe('chooseBySuccessRate', () => {
  it('uses the most specific key with min_samples outcomes, else a coarser one, else the prior', () => {
    const countsOf = table({
      a: { 'scheme=visa,currency=USD': { successes: 18, failures: 2 }, '*': { successes: 50, failures: 50 } },
      b: { 'currency=USD': { successes: 5, failures: 5 }, '*': { successes: 30, failures: 0 } },
      c: { '*': { successes: 3, failures: 0 } },
    });
    const { explanation } = chooseBySuccessRate(['a', 'b', 'c'], KEYS, countsOf, NONE, params, 'seed');
    expect(explanation.candidates.map((c) => [c.payment_service_id, c.dimension_key, c.samples])).toEqual([
      ['a', 'scheme=visa,currency=USD', 20],
      ['b', '*', 30],
      ['c', null, 0],
    ]);
    expect(explanation.candidates[0]!.estimated_rate).toBeCloseTo(19 / 22, 5);
    expect(explanation.candidates[2]!.estimated_rate).toBe(0.5);
  });

  it('is reproducible from its seed, and the rest follow by estimated rate', () => {
    const countsOf = table({
      a: { '*': { successes: 60, failures: 40 } },
      b: { '*': { successes: 90, failures: 10 } },
      c: { '*': { successes: 75, failures: 25 } },
    });
    const first = chooseBySuccessRate(['a', 'b', 'c'], KEYS, countsOf, NONE, params, 'txn-1');
    expect(chooseBySuccessRate(['a', 'b', 'c'], KEYS, countsOf, NONE, params, 'txn-1')).toEqual(first);
    const exploit = Array.from({ length: 50 }, (_, i) =>
      chooseBySuccessRate(['a', 'b', 'c'], KEYS, countsOf, NONE, params, `t${i}`),
    ).find((c) => !c.explanation.explored)!;
    expect(exploit.order).toEqual(['b', 'c', 'a']);
    expect(exploit.explanation.reason).toMatch(
      /^highest estimated rate 0\.892157 \(100 answers at the service overall/,
    );
  });

  it('explores within its share only: outside it the highest estimated rate always goes first', () => {
    const arm = fc.record({ successes: fc.nat(500), failures: fc.nat(500) });
    fc.assert(
      fc.property(
        fc.array(arm, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 50 }),
        fc.string(),
        (arms, share, seed) => {
          const ids = arms.map((_, i) => `s${i}`);
          const countsOf: CountsOf = (id) => ({ errors: 0, ...arms[Number(id.slice(1))]! });
          const choice = chooseBySuccessRate(
            ids,
            KEYS,
            countsOf,
            NONE,
            { ...params, minSamples: 1, explorationPercent: share },
            seed,
          );
          const e = choice.explanation;
          expect(e.explored).toBe(e.draw < share / 100);
          expect([...choice.order].sort()).toEqual([...ids].sort());
          if (!e.explored) {
            const best = Math.max(...e.candidates.map((c) => c.estimated_rate));
            expect(e.candidates.find((c) => c.payment_service_id === choice.order[0])!.estimated_rate).toBe(best);
          }
        },
      ),
    );
  });

  it('the share of decisions that explore stays within exploration_percent', () => {
    const countsOf = table({
      a: { '*': { successes: 10, failures: 10 } },
      b: { '*': { successes: 11, failures: 10 } },
    });
    for (const share of [0, 5, 20]) {
      const runs = 4000;
      let explored = 0;
      for (let i = 0; i < runs; i++)
        if (
          chooseBySuccessRate(['a', 'b'], KEYS, countsOf, NONE, { ...params, explorationPercent: share }, `x${i}`)
            .explanation.explored
        )
          explored++;
      // 4 standard errors above the share at most.
      expect(explored / runs).toBeLessThanOrEqual(share / 100 + 4 * Math.sqrt(0.25 / runs));
    }
  });

  it('picks the best service with a probability that tends to 1 as evidence grows', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.1, max: 0.85, noNaN: true }),
        fc.double({ min: 0.05, max: 0.1, noNaN: true }),
        (worse, gap) => {
          const better = worse + gap;
          const share = (n: number) => {
            const countsOf = table({
              w: { '*': { successes: Math.round(n * worse), failures: n - Math.round(n * worse) } },
              b: { '*': { successes: Math.round(n * better), failures: n - Math.round(n * better) } },
            });
            let best = 0;
            for (let i = 0; i < 400; i++)
              if (
                chooseBySuccessRate(
                  ['w', 'b'],
                  KEYS,
                  countsOf,
                  NONE,
                  { ...params, explorationPercent: 50 },
                  `${n}:${i}`,
                ).order[0] === 'b'
              )
                best++;
            return best / 400;
          };
          const few = share(20);
          const many = share(20_000);
          expect(many).toBeGreaterThan(0.98);
          expect(many).toBeGreaterThanOrEqual(few);
        },
      ),
      { numRuns: 10 },
    );
  });
});
