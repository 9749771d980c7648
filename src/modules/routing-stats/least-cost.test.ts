import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExpectedCost } from '../payment-services/fee-schedule.ts';
import type { CountsOf } from './chooser.ts';
import { chooseByLeastCost, type CostedService } from './least-cost.ts';
import type { Counts } from './sliding-window.ts';

type Answers = Pick<Counts, 'successes' | 'failures'> & { errors?: number };

const KEYS = ['scheme=visa,currency=USD', '*'];
const params = { minSamples: 10, windowMinutes: 60, costMarginPercent: 0.5 };
const table =
  (counts: Record<string, Answers>): CountsOf =>
  (id, key) => {
    const c = key === '*' ? counts[id] : undefined;
    return c ? { errors: 0, ...c } : undefined;
  };
/** No recent call anywhere: every availability is 1. */
const NONE: CountsOf = () => undefined;
const cost = (minor: number): ExpectedCost => ({
  known: true,
  entryIndex: 0,
  micros: BigInt(minor) * 1_000_000n,
  currency: 'USD',
});
const unknown: ExpectedCost = { known: false, entryIndex: null, reason: 'no_fee_schedule' };
const svc = (id: string, c: ExpectedCost): CostedService => ({ id, cost: c });

describe('chooseByLeastCost', () => {
  it('picks the cheapest service whose rate is within the margin; the rest follow by rate', () => {
    // Rates (posterior means): a 899/1002 ≈ 0.8972, b 901/1002 ≈ 0.8992, c 801/1002 ≈ 0.7994.
    const countsOf = table({
      a: { successes: 898, failures: 102 },
      b: { successes: 900, failures: 100 },
      c: { successes: 800, failures: 200 },
    });
    const choice = chooseByLeastCost(
      [svc('b', cost(50)), svc('a', cost(30)), svc('c', cost(10))],
      KEYS,
      countsOf,
      NONE,
      params,
    );
    expect(choice.order).toEqual(['a', 'b', 'c']);
    expect(choice.explanation).toMatchObject({
      chosen: 'a',
      best_rate: Math.round((901 / 1002) * 1e6) / 1e6,
      reason: `lowest expected cost 30 USD of the 2 services within the margin (best rate ${Math.round((901 / 1002) * 1e6) / 1e6}, margin 0.5 points; its rate ${Math.round((899 / 1002) * 1e6) / 1e6} from 1000 outcomes at the service overall (*))`,
    });
    expect(choice.explanation.candidates.map((c) => [c.payment_service_id, c.within_margin])).toEqual([
      ['b', true],
      ['a', true],
      ['c', false],
    ]);
    expect(choice.explanation.candidates[1]).toEqual({
      payment_service_id: 'a',
      expected_cost: { amount: 30, exact: '30', currency: 'USD' },
      cost_unknown_because: null,
      fee_entry_index: 0,
      dimension_key: '*',
      successes: 898,
      failures: 102,
      samples: 1000,
      approval_rate: Math.round((899 / 1002) * 1e6) / 1e6,
      recent_errors: 0,
      recent_calls: 0,
      availability: 1,
      estimated_rate: Math.round((899 / 1002) * 1e6) / 1e6,
      rate_known: true,
      within_margin: true,
    });
    // A margin of 0: only the best rate qualifies.
    expect(
      chooseByLeastCost([svc('b', cost(50)), svc('a', cost(30))], KEYS, countsOf, NONE, {
        ...params,
        costMarginPercent: 0,
      }).order,
    ).toEqual(['b', 'a']);
    // A wide margin lets the cheapest of all go first.
    expect(
      chooseByLeastCost([svc('b', cost(50)), svc('a', cost(30)), svc('c', cost(10))], KEYS, countsOf, NONE, {
        ...params,
        costMarginPercent: 15,
      }).order[0],
    ).toBe('c');
  });

  it('ranks services of unknown cost after those with a cost, and among unknowns the higher rate first', () => {
    const countsOf = table({
      a: { successes: 90, failures: 10 },
      b: { successes: 91, failures: 9 },
      c: { successes: 95, failures: 5 },
    });
    const wide = { ...params, costMarginPercent: 10 };
    expect(chooseByLeastCost([svc('c', unknown), svc('a', cost(40))], KEYS, countsOf, NONE, wide).order).toEqual([
      'a',
      'c',
    ]);
    const none = chooseByLeastCost([svc('a', unknown), svc('b', unknown)], KEYS, countsOf, NONE, wide);
    expect(none.order).toEqual(['b', 'a']);
    expect(none.explanation.reason).toMatch(
      /^no service within the margin has a known cost: the highest rate goes first \(best rate 0\.\d+, margin 10 points; /,
    );
    expect(none.explanation.candidates[0]).toMatchObject({
      expected_cost: null,
      cost_unknown_because: 'no_fee_schedule',
    });
  });

  it('a service with too few outcomes is within the margin until measured; with no rate known the cheapest goes first', () => {
    const countsOf = table({ good: { successes: 100, failures: 0 }, fresh: { successes: 1, failures: 3 } });
    const choice = chooseByLeastCost([svc('good', cost(50)), svc('fresh', cost(20))], KEYS, countsOf, NONE, params);
    expect(choice.order).toEqual(['fresh', 'good']);
    expect(choice.explanation.candidates[1]).toMatchObject({
      rate_known: false,
      dimension_key: null,
      within_margin: true,
    });
    expect(choice.explanation.reason).toContain(
      'rate unknown: fewer than 10 outcomes, within the margin until measured',
    );
    const blank = chooseByLeastCost([svc('x', cost(9)), svc('y', cost(8))], KEYS, table({}), NONE, params);
    expect(blank.order).toEqual(['y', 'x']);
    expect(blank.explanation.best_rate).toBeNull();
  });

  it('ties of cost go to the higher rate, then the rule order; deterministic', () => {
    const countsOf = table({ a: { successes: 50, failures: 50 }, b: { successes: 60, failures: 40 } });
    const wide = { ...params, costMarginPercent: 50 };
    expect(chooseByLeastCost([svc('a', cost(10)), svc('b', cost(10))], KEYS, countsOf, NONE, wide).order).toEqual([
      'b',
      'a',
    ]);
    expect(chooseByLeastCost([svc('a', cost(10)), svc('c', cost(10))], KEYS, table({}), NONE, wide).order).toEqual([
      'a',
      'c',
    ]);
    const once = chooseByLeastCost([svc('a', cost(10)), svc('b', cost(12))], KEYS, countsOf, NONE, wide);
    expect(chooseByLeastCost([svc('a', cost(10)), svc('b', cost(12))], KEYS, countsOf, NONE, wide)).toEqual(once);
  });

  it('property: the chosen cost is at most the cost of any other candidate within the margin, and the chosen one is within it', () => {
    const arbService = fc.record({
      cost: fc.option(fc.bigInt({ min: 0n, max: 10n ** 12n }), { nil: null }),
      successes: fc.integer({ min: 0, max: 500 }),
      failures: fc.integer({ min: 0, max: 500 }),
    });
    fc.assert(
      fc.property(
        fc.array(arbService, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 2000 }),
        (list, marginHundredths) => {
          const ids = list.map((_, i) => `s${i}`);
          const counts = Object.fromEntries(
            list.map((s, i) => [ids[i]!, { successes: s.successes, failures: s.failures }]),
          );
          const services = list.map((s, i) =>
            svc(ids[i]!, s.cost === null ? unknown : { known: true, entryIndex: 0, micros: s.cost, currency: 'USD' }),
          );
          const choice = chooseByLeastCost(services, KEYS, table(counts), NONE, {
            ...params,
            costMarginPercent: marginHundredths / 100,
          });
          expect([...choice.order].sort()).toEqual([...ids].sort());
          const chosen = choice.explanation.candidates.find((c) => c.payment_service_id === choice.order[0])!;
          expect(chosen.within_margin).toBe(true);
          const chosenCost = services.find((s) => s.id === chosen.payment_service_id)!.cost;
          for (const [i, c] of choice.explanation.candidates.entries()) {
            if (!c.within_margin) continue;
            const other = services[i]!.cost;
            if (other.known) {
              expect(chosenCost.known).toBe(true);
              if (chosenCost.known) expect(chosenCost.micros <= other.micros).toBe(true);
            }
          }
          // Within the margin means: rate unknown, or at most margin points below the best known rate.
          const best = choice.explanation.best_rate;
          for (const c of choice.explanation.candidates)
            if (c.rate_known && best !== null && (best - c.estimated_rate) * 100 > marginHundredths / 100 + 1e-3)
              expect(c.within_margin).toBe(false);
        },
      ),
    );
  });
});
