import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import { HARD_DECLINES } from '../flows/flow-decisions.ts';
import { classifyAuthorization } from './outcome-class.ts';
import { seededRandom } from './prng.ts';
import { BUCKET_MS, SlidingWindow, bucketOf, estimatedRate, windowStartOf } from './sliding-window.ts';

const declined = (code: string) =>
  ({ ok: true, ms: 1, value: { status: 'declined', errorCode: code } as AuthorizeOutcome }) as const;
const approved = { ok: true, ms: 1, value: { status: 'authorized', errorCode: null } as AuthorizeOutcome } as const;
const failed = {
  ok: true,
  ms: 1,
  value: { status: 'failed', errorCode: 'service_error' } as AuthorizeOutcome,
} as const;

function clock(start = Date.UTC(2026, 0, 1, 12)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('buckets', () => {
  it('a window of n minutes holds n buckets, the current one included', () => {
    const t = Date.UTC(2026, 0, 1, 12, 30, 45);
    expect(bucketOf(t)).toBe(Date.UTC(2026, 0, 1, 12, 30));
    expect(windowStartOf(t, 1)).toBe(Date.UTC(2026, 0, 1, 12, 30));
    expect(windowStartOf(t, 60)).toBe(Date.UTC(2026, 0, 1, 11, 31));
  });

  it('forgets whole buckets as they leave the window', () => {
    const c = clock();
    const w = new SlidingWindow(2, c.now);
    w.record('failure');
    c.advance(BUCKET_MS);
    w.record('success');
    expect(w.totals()).toEqual({ successes: 1, failures: 1 });
    c.advance(BUCKET_MS);
    expect(w.totals()).toEqual({ successes: 1, failures: 0 });
    c.advance(BUCKET_MS);
    expect(w.totals()).toEqual({ successes: 0, failures: 0 });
  });
});

describe('properties', () => {
  it("a service's estimate converges to its true rate", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.05, max: 0.95, noNaN: true }), fc.string(), (rate, seed) => {
        const c = clock();
        const w = new SlidingWindow(60, c.now);
        const random = seededRandom(seed);
        for (let i = 0; i < 4000; i++) {
          w.record(classifyAuthorization(random() < rate ? approved : failed));
          c.advance(500);
        }
        // 4000 outcomes over 33 minutes, all inside the window: 5 standard errors at most.
        expect(Math.abs(estimatedRate(w.totals()) - rate)).toBeLessThan(5 * Math.sqrt(0.25 / 4000));
      }),
      { numRuns: 30 },
    );
  });

  it('a hard decline never moves the estimate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<'success' | 'failure'>('success', 'failure'), { maxLength: 50 }),
        fc.constantFrom(...HARD_DECLINES, 'insufficient_funds'),
        fc.integer({ min: 1, max: 20 }),
        (history, code, times) => {
          const c = clock();
          const w = new SlidingWindow(10, c.now);
          for (const outcome of history) w.record(outcome);
          const before = w.totals();
          for (let i = 0; i < times; i++) w.record(classifyAuthorization(declined(code)));
          expect(w.totals()).toEqual(before);
        },
      ),
    );
  });
});
