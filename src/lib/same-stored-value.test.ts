import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical } from './canonical-json.ts';
import { sameStoredValue } from './same-stored-value.ts';

/** The value with every object's keys in a shuffled order (the same value, as jsonb may give it back). */
function reordered(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => reordered(item, seed + i));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  const shuffled = keys.map((key, i) => [key, (seed * 31 + i * 17) % (keys.length + 3)] as const);
  shuffled.sort((a, b) => a[1] - b[1]);
  return Object.fromEntries(
    shuffled.map(([key], i) => [key, reordered((value as Record<string, unknown>)[key], seed + i)]),
  );
}

describe('happy', () => {
  it('tells what comparing the sorted-key JSON texts tells, for any two JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(sameStoredValue(a, b)).toBe(canonical(a) === canonical(b));
      }),
    );
  });

  it('finds a value equal to itself whatever its keys order, and unequal after any one change', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, seed) => {
        expect(sameStoredValue(value, reordered(value, seed))).toBe(true);
        expect(sameStoredValue({ v: value }, { v: value, extra: 1 })).toBe(false);
        expect(sameStoredValue([value], [value, value])).toBe(false);
      }),
    );
  });

  it('compares dates by instant, and undefined, NaN and the infinities as null', () => {
    expect(sameStoredValue(new Date(1000), new Date(1000))).toBe(true);
    expect(sameStoredValue(new Date(1000), new Date(1001))).toBe(false);
    expect(sameStoredValue({ at: new Date(5) }, { at: new Date(5) })).toBe(true);
    expect(sameStoredValue(undefined, null)).toBe(true);
    expect(sameStoredValue({ a: undefined }, { a: null })).toBe(true);
    expect(sameStoredValue(Number.NaN, null)).toBe(true);
    expect(sameStoredValue([Number.POSITIVE_INFINITY], [null])).toBe(true);
  });
});

describe('sad', () => {
  it('tells apart what differs: a missing key, an order of array items, a type', () => {
    expect(sameStoredValue({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameStoredValue({ a: null }, { b: null })).toBe(false);
    expect(sameStoredValue([1, 2], [2, 1])).toBe(false);
    expect(sameStoredValue('1', 1)).toBe(false);
    expect(sameStoredValue({}, [])).toBe(false);
    expect(sameStoredValue(new Date(0), 0)).toBe(false);
    expect(sameStoredValue(0, null)).toBe(false);
    expect(sameStoredValue('', null)).toBe(false);
  });
});
