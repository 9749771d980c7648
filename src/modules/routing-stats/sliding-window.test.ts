import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import { HARD_DECLINES } from '../flows/flow-decisions.ts';
import { classifyAuthorization, type OutcomeClass } from './outcome-class.ts';
import { seededRandom } from './prng.ts';
import {
  approvalRate,
  availabilityOf,
  BUCKET_MS,
  bucketOf,
  estimatedRate,
  HEALTH_WINDOW_MINUTES,
  SlidingWindow,
  windowStartOf,
} from './sliding-window.ts';

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
    w.record('decline');
    w.record('error');
    c.advance(BUCKET_MS);
    w.record('success');
    expect(w.totals()).toEqual({ successes: 1, failures: 1, errors: 1 });
    c.advance(BUCKET_MS);
    expect(w.totals()).toEqual({ successes: 1, failures: 0, errors: 0 });
    c.advance(BUCKET_MS);
    expect(w.totals()).toEqual({ successes: 0, failures: 0, errors: 0 });
  });
});

describe('properties', () => {
  it("a service's estimate converges to its true rate: the approval rate times the share of calls it answers", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0.5, max: 1, noNaN: true }),
        fc.string(),
        (rate, answers, seed) => {
          const c = clock();
          const w = new SlidingWindow(60, c.now);
          const random = seededRandom(seed);
          for (let i = 0; i < 4000; i++) {
            if (random() >= answers) w.record(classifyAuthorization(failed));
            else w.record(classifyAuthorization(random() < rate ? approved : declined('do_not_honor')));
            c.advance(500);
          }
          // 4000 calls over 33 minutes, all inside the window: 5 standard errors at most.
          const totals = w.totals();
          const calls = totals.successes + totals.failures;
          expect(Math.abs(approvalRate(totals) - rate)).toBeLessThan(5 * Math.sqrt(0.25 / calls));
          expect(Math.abs(availabilityOf(totals) - answers)).toBeLessThan(5 * Math.sqrt(0.25 / 4000));
          expect(Math.abs(estimatedRate(totals, totals) - rate * answers)).toBeLessThan(10 * Math.sqrt(0.25 / calls));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('errors leave the availability once they are out of the health window, and never touch the approval rate', () => {
    const c = clock();
    const recent = new SlidingWindow(HEALTH_WINDOW_MINUTES, c.now);
    const long = new SlidingWindow(60, c.now);
    const both = (o: OutcomeClass) => {
      recent.record(o);
      long.record(o);
    };
    for (let i = 0; i < 90; i++) both(i % 10 === 0 ? 'decline' : 'success');
    const before = approvalRate(long.totals());
    for (let i = 0; i < 30; i++) both('error');
    expect(approvalRate(long.totals())).toBe(before);
    expect(availabilityOf(recent.totals())).toBeCloseTo(91 / 121, 6);
    c.advance(HEALTH_WINDOW_MINUTES * BUCKET_MS);
    expect(availabilityOf(recent.totals())).toBe(1);
    expect(estimatedRate(long.totals(), recent.totals())).toBe(before);
  });

  it('a hard decline never moves the estimate', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<OutcomeClass>('success', 'decline', 'error'), { maxLength: 50 }),
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
