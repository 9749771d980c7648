import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExpired, parseExpirationDate } from './expiration.ts';

describe('happy', () => {
  it('parses MM/YY into a month and a four-digit year', () => {
    expect(parseExpirationDate('04/29')).toEqual({ month: 4, year: 2029 });
    expect(parseExpirationDate('12/00')).toEqual({ month: 12, year: 2000 });
    expect(parseExpirationDate('01/99')).toEqual({ month: 1, year: 2099 });
  });

  it('keeps a card valid through the last millisecond of its month, UTC', () => {
    expect(isExpired('04/29', new Date('2029-04-30T23:59:59.999Z'))).toBe(false);
    expect(isExpired('04/29', new Date('2029-05-01T00:00:00.000Z'))).toBe(true);
    expect(isExpired('12/29', new Date('2029-12-31T23:59:59.999Z'))).toBe(false);
    expect(isExpired('12/29', new Date('2030-01-01T00:00:00.000Z'))).toBe(true);
    expect(isExpired('02/28', new Date('2028-02-29T12:00:00Z'))).toBe(false);
    expect(isExpired({ month: 3, year: 2024 }, new Date('2024-01-01T00:00:00Z'))).toBe(false);
    // A time zone ahead of UTC does not move the boundary.
    expect(isExpired('04/29', new Date('2029-05-01T01:00:00+02:00'))).toBe(false);
  });

  it('flips from valid to expired exactly at the first instant of the next month (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 99 }), (month, yy) => {
        const mmYY = `${String(month).padStart(2, '0')}/${String(yy).padStart(2, '0')}`;
        const boundary = Date.UTC(2000 + yy, month, 1);
        expect(isExpired(mmYY, new Date(boundary - 1))).toBe(false);
        expect(isExpired(mmYY, new Date(boundary))).toBe(true);
      }),
    );
  });
});

describe('errors', () => {
  it.each(['4/29', '13/29', '00/29', '04/2029', '04-29', ' 04/29', '04/29 ', '', '0429', 'ab/cd'])(
    'refuses %j',
    (value) => {
      expect(parseExpirationDate(value)).toBeNull();
      expect(() => isExpired(value, new Date())).toThrow(RangeError);
    },
  );
});
