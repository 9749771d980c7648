import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallFailure, CallSuccess } from '../../connectors/call.ts';
import type { AuthorizeOutcome } from '../../connectors/connector.ts';
import { healthOf } from './circuit-outcome.ts';
import {
  addTally,
  closedRow,
  count,
  emptyTally,
  probes,
  stateAt,
  windowCounts,
  type CircuitRow,
  type CircuitSettings,
  type Tally,
} from './circuit-state.ts';

const SETTINGS: CircuitSettings = {
  windowMs: 60_000,
  minCalls: 10,
  failureRate: 0.5,
  consecutive: 5,
  cooldownMs: 30_000,
  probePercent: 10,
};
const T0 = Date.UTC(2026, 0, 1);

const tallyOf = (...outcomes: Array<'success' | 'failure'>): Tally => {
  const tally = emptyTally();
  for (const o of outcomes) count(tally, o);
  return tally;
};
const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

/** Feeds outcomes one flush each, `stepMs` apart; returns the row and the transitions in order. */
function feed(row: CircuitRow, batches: Tally[], start: number, stepMs: number, settings = SETTINGS) {
  const transitions: Array<{ at: number; transition: string }> = [];
  let now = start;
  for (const tally of batches) {
    const next = addTally(row, tally, now, settings);
    row = next.row;
    if (next.transition) transitions.push({ at: now, transition: next.transition });
    now += stepMs;
  }
  return { row, transitions };
}

const answer = (status: AuthorizeOutcome['status'], errorCode: string | null): CallSuccess<AuthorizeOutcome> => ({
  ok: true,
  ms: 10,
  value: {
    status,
    errorCode,
    providerTransactionId: null,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: {},
  } as unknown as AuthorizeOutcome,
});
const failure = (kind: CallFailure['kind']): CallFailure => ({ ok: false, kind, message: kind, ms: 10 });

describe('what an authorization says about its service', () => {
  it('counts timeouts, unreachable services and service errors as failures, declines and approvals as answers', () => {
    expect(healthOf(failure('timeout'))).toBe('failure');
    expect(healthOf(failure('unavailable'))).toBe('failure');
    expect(healthOf(failure('invalid_request'))).toBeNull();
    expect(healthOf(answer('failed', 'service_error'))).toBe('failure');
    expect(healthOf(answer('failed', 'service_network_error'))).toBe('failure');
    expect(healthOf(answer('failed', null))).toBe('failure');
    expect(healthOf(answer('failed', 'buyer_approval_timeout'))).toBeNull();
    for (const code of ['do_not_honor', 'insufficient_funds', 'stolen_card', 'expired_card', 'authentication_required'])
      expect(healthOf(answer('declined', code))).toBe('success');
    expect(healthOf(answer('authorized', null))).toBe('success');
    expect(healthOf(answer('buyer_approval_pending', null))).toBe('success');
  });
});

describe('the circuit state machine', () => {
  it('opens at half of ten calls failing, stays open for the cool-down, then is half-open', () => {
    const start = closedRow(T0);
    // 4 failures and 5 successes: 9 calls, under the minimum volume.
    const nine = addTally(
      start,
      tallyOf('failure', 'success', 'failure', 'success', 'failure', 'success', 'failure', 'success', 'success'),
      T0 + 1000,
      SETTINGS,
    );
    expect(nine.transition).toBeNull();
    expect(nine.row.state).toBe('closed');
    // The tenth call fails: 5 of 10.
    const ten = addTally(nine.row, tallyOf('failure'), T0 + 2000, SETTINGS);
    expect(ten.transition).toBe('opened');
    expect(ten.row).toMatchObject({ state: 'open', openedAt: T0 + 2000, retryAt: T0 + 32_000 });
    expect(ten.row.reason).toBe('5 of 10 calls failed within 60 s');
    expect(stateAt(ten.row, T0 + 31_999)).toBe('open');
    expect(stateAt(ten.row, T0 + 32_000)).toBe('half_open');
  });

  it('opens after five failures in a row whatever the volume', () => {
    const { row, transitions } = feed(
      closedRow(T0),
      [tallyOf('success', 'failure', 'failure'), tallyOf('failure', 'failure'), tallyOf('failure')],
      T0,
      1000,
    );
    expect(transitions).toEqual([{ at: T0 + 2000, transition: 'opened' }]);
    expect(row.reason).toBe('5 calls failed in a row');
  });

  it('restarts the run of failures after a success within a batch', () => {
    const { row, transitions } = feed(
      closedRow(T0),
      [
        tallyOf('failure', 'failure', 'failure', 'failure', 'success'),
        tallyOf('failure', 'failure', 'failure', 'failure'),
      ],
      T0,
      1000,
    );
    expect(transitions).toEqual([]);
    expect(row.consecutiveFailures).toBe(4);
  });

  it('ignores outcomes during the cool-down, closes on a successful probe, reopens on a failed one', () => {
    const open = addTally(closedRow(T0), tallyOf(...times(5, 'failure' as const)), T0, SETTINGS).row;
    // A single-service merchant keeps using it during the cool-down: not counted.
    const during = addTally(open, tallyOf('success'), T0 + 10_000, SETTINGS);
    expect(during).toEqual({ row: open, transition: null });
    const reopened = addTally(open, tallyOf('failure'), T0 + 30_000, SETTINGS);
    expect(reopened.transition).toBe('reopened');
    expect(reopened.row).toMatchObject({ state: 'open', openedAt: T0, retryAt: T0 + 60_000, reason: 'a probe failed' });
    expect(stateAt(reopened.row, T0 + 45_000)).toBe('open');
    const closed = addTally(reopened.row, tallyOf('failure', 'success'), T0 + 61_000, SETTINGS);
    expect(closed.transition).toBe('closed');
    expect(closed.row).toEqual(closedRow(T0 + 61_000));
    // A batch whose last outcome failed reopens, whatever came before.
    expect(addTally(reopened.row, tallyOf('success', 'failure'), T0 + 61_000, SETTINGS).transition).toBe('reopened');
  });

  it('forgets failures that left the sliding window', () => {
    // 8 failures of 8 calls, then 60 s later 2 successes: the old window weighs little by then.
    const first = addTally(
      closedRow(T0),
      tallyOf('failure', 'failure', 'failure', 'failure', 'success', 'failure', 'failure', 'failure'),
      T0,
      SETTINGS,
    ).row;
    expect(windowCounts(first, T0 + 90_000, 60_000)).toEqual({ calls: 4, failures: 3.5 });
    expect(windowCounts(first, T0 + 120_000, 60_000)).toEqual({ calls: 0, failures: 0 });
    const later = addTally(first, tallyOf('success', 'success'), T0 + 110_000, SETTINGS);
    expect(later.transition).toBeNull();
  });

  it('bounds the probes of a half-open circuit: the first decision, then one in ten', () => {
    const admitted = Array.from({ length: 30 }, (_, i) => i + 1).filter((n) => probes(n, 10));
    expect(admitted).toEqual([1, 11, 21]);
    expect(Array.from({ length: 5 }, (_, i) => probes(i + 1, 100))).toEqual([true, true, true, true, true]);
  });
});

describe('properties', () => {
  const outcome = fc.constantFrom<'success' | 'failure'>('success', 'failure');
  const batches = fc.array(fc.array(outcome, { minLength: 1, maxLength: 8 }), { maxLength: 40 });

  it('never opens on declines: a service that only answers (declines included) stays closed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 50 }),
        fc.integer({ min: 1, max: 5000 }),
        (sizes, step) => {
          const declines = sizes.map((n) => tallyOf(...times(n, healthOf(answer('declined', 'do_not_honor'))!)));
          expect(feed(closedRow(T0), declines, T0, step).transitions).toEqual([]);
        },
      ),
    );
  });

  it('probes at most ceil(n × percent / 100) of n decisions', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 1, max: 100 }), (n, percent) => {
        let admitted = 0;
        for (let i = 1; i <= n; i++) if (probes(i, percent)) admitted++;
        expect(admitted).toBe(Math.ceil((n * percent) / 100));
      }),
    );
  });

  it('opens only past a threshold: a failure share at or above the rate over the minimum volume, or the run of failures', () => {
    fc.assert(
      fc.property(batches, fc.integer({ min: 1, max: 3000 }), (list, step) => {
        let row = closedRow(T0);
        let now = T0;
        let run = 0;
        for (const outcomes of list) {
          const tally = tallyOf(...outcomes);
          const before = row;
          const next = addTally(row, tally, now, SETTINGS);
          for (const o of outcomes) run = o === 'failure' ? run + 1 : 0;
          if (before.state === 'closed') {
            // An exact recount of the window the machine judged: what it held plus this batch.
            const held = windowCounts(before, now, SETTINGS.windowMs);
            const calls = held.calls + tally.calls;
            const failures = held.failures + tally.failures;
            const past = (calls >= SETTINGS.minCalls && failures >= 0.5 * calls) || run >= SETTINGS.consecutive;
            expect(next.transition === 'opened').toBe(past);
          }
          if (next.transition) run = 0;
          row = next.row;
          now += step;
        }
      }),
    );
  });
});
