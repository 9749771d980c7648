import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addCard,
  addCell,
  bucketOf,
  CARD_CAP,
  cellAt,
  forgetBefore,
  forgetRange,
  type KeyCells,
  measureOf,
  unionCards,
  VELOCITY_BUCKET_MS,
  VELOCITY_MEASURES,
  windowStartOf,
} from './velocity-window.ts';

/** The pure window: counts add across sources, cards are a set, old buckets fall out whole. */

const T0 = Date.UTC(2026, 11, 6, 12, 0, 0);
const event = fc.record({
  at: fc.integer({ min: 0, max: 30 * VELOCITY_BUCKET_MS }),
  currency: fc.constantFrom('USD', 'EUR'),
  amount: fc.integer({ min: 0, max: 10_000 }),
  declined: fc.boolean(),
  card: fc.option(fc.constantFrom('c1', 'c2', 'c3', 'c4', 'c5'), { nil: null }),
  source: fc.integer({ min: 0, max: 2 }),
});
type Event = typeof event extends fc.Arbitrary<infer E> ? E : never;

function cellsOf(events: readonly Event[]): KeyCells {
  const cells: KeyCells = [];
  for (const e of events) {
    const cell = cellAt(cells, e.currency, bucketOf(T0 + e.at));
    addCell(cell, {
      attempts: 1,
      declines: e.declined ? 1 : 0,
      amount: e.amount,
      cards: e.card ? [e.card] : [],
    });
  }
  return cells;
}

describe('velocity window', () => {
  it('gives the same measure however the counts are split among sources (no count lost or doubled; cards a set)', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 60 }),
        fc.constantFrom(...VELOCITY_MEASURES),
        fc.integer({ min: 1, max: 40 }),
        (events, measure, windowMinutes) => {
          const now = T0 + 30 * VELOCITY_BUCKET_MS;
          const spec = { measure, windowMinutes, currency: 'USD' };
          const whole = measureOf([cellsOf(events)], spec, now, null);
          const split = [0, 1, 2].map((s) => cellsOf(events.filter((e) => e.source === s)));
          expect(measureOf(split, spec, now, null)).toBe(whole);
          // A source that repeats another's cards adds no distinct card.
          if (measure === 'distinct_cards') expect(measureOf([...split, split[0]], spec, now, null)).toBe(whole);
        },
      ),
    );
  });

  it('counts an event while its bucket is inside the window, and forgets it whole afterwards', () => {
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 59_999 }),
        (events, windowMinutes, offset) => {
          const now = T0 + 30 * VELOCITY_BUCKET_MS + offset;
          const start = windowStartOf(now, windowMinutes);
          const inside = events.filter((e) => bucketOf(T0 + e.at) >= start);
          const spec = { measure: 'attempts' as const, windowMinutes };
          expect(measureOf([cellsOf(events)], spec, now, null)).toBe(inside.length);
          const usd = inside.filter((e) => e.currency === 'USD').reduce((sum, e) => sum + e.amount, 0);
          expect(measureOf([cellsOf(events)], { measure: 'amount', windowMinutes, currency: 'USD' }, now, null)).toBe(
            usd,
          );
          // Cells in bucket order, one per currency and bucket, however the events came.
          const cells = cellsOf(events);
          const places = cells.map((c) => `${c.bucket}:${c.currency}`);
          expect(new Set(places).size).toBe(cells.length);
          expect(cells.map((c) => c.bucket)).toEqual(cells.map((c) => c.bucket).sort((a, b) => a - b));
          // Forgetting a range of buckets, then the buckets before the window, changes no count inside it.
          const outside = cellsOf(events);
          forgetRange(outside, start, now + VELOCITY_BUCKET_MS);
          expect(measureOf([outside], spec, now, null)).toBe(0);
          forgetBefore(cells, start);
          expect(measureOf([cells], spec, now, null)).toBe(inside.length);
          for (const cell of cells) expect(cell.bucket).toBeGreaterThanOrEqual(start);
        },
      ),
    );
  });

  it('counts the transaction being decided: one attempt, its amount in its currency, its card once', () => {
    const cells = cellsOf([{ at: 0, currency: 'USD', amount: 500, declined: true, card: 'c1', source: 0 }]);
    const now = T0;
    const current = { currency: 'USD', amount: 700, card: 'c1' };
    expect(measureOf([cells], { measure: 'attempts', windowMinutes: 1 }, now, current)).toBe(2);
    expect(measureOf([cells], { measure: 'declines', windowMinutes: 1 }, now, current)).toBe(1);
    expect(measureOf([cells], { measure: 'amount', windowMinutes: 1, currency: 'USD' }, now, current)).toBe(1200);
    expect(measureOf([cells], { measure: 'amount', windowMinutes: 1, currency: 'EUR' }, now, current)).toBe(0);
    expect(measureOf([cells], { measure: 'distinct_cards', windowMinutes: 1 }, now, current)).toBe(1);
    expect(measureOf([cells], { measure: 'distinct_cards', windowMinutes: 1 }, now, { ...current, card: 'c2' })).toBe(
      2,
    );
  });

  it('keeps card sets exact below the cap, and at most the cap (the lowest) above it', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 150 }),
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { maxLength: 150 }),
        (a, b) => {
          const union = unionCards(unionCards([], a), b);
          const exact = [...new Set([...a, ...b])].sort();
          expect(union).toEqual(exact.slice(0, CARD_CAP));
        },
      ),
    );
  });

  it('adds one card as unionCards does: sorted, once, the lowest CARD_CAP kept (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 }), { maxLength: 150 }), (cards) => {
        let one: string[] = [];
        let union: string[] = [];
        for (const card of cards) {
          const before = one;
          one = addCard(one, card);
          expect(before.length).toBeLessThanOrEqual(CARD_CAP);
          union = unionCards(union, [card]);
          expect(one).toEqual(union);
        }
      }),
    );
  });
});
