import { describe, expect, it } from 'vitest';
import { IntervalError, parseDuration, parseInterval } from './datetime-range.ts';

const now = new Date('2026-03-25T10:17:30Z');

describe('parseDuration', () => {
  it('reads weeks, days, hours, minutes and seconds', () => {
    expect(parseDuration('P7D')).toBe(7 * 86_400_000);
    expect(parseDuration('PT60M')).toBe(3_600_000);
    expect(parseDuration('P1W')).toBe(7 * 86_400_000);
    expect(parseDuration('P1DT12H')).toBe(36 * 3_600_000);
    expect(parseDuration('PT90S')).toBe(90_000);
  });
  it('refuses empty, zero and calendar durations', () => {
    for (const text of ['P', 'PT', 'P0D', 'P1Y', 'P1M', '7D', 'P1.5D']) expect(parseDuration(text)).toBeNull();
  });
});

describe('parseInterval', () => {
  it('takes duration/end with the hour keywords', () => {
    expect(parseInterval('P7D/hour_start', now)).toEqual({
      start: new Date('2026-03-18T10:00:00Z'),
      end: new Date('2026-03-25T10:00:00Z'),
    });
    expect(parseInterval('PT60M/hour_end', now)).toEqual({
      start: new Date('2026-03-25T10:00:00Z'),
      end: new Date('2026-03-25T11:00:00Z'),
    });
    expect(parseInterval('PT5M/now', now)).toEqual({ start: new Date('2026-03-25T10:12:30Z'), end: now });
  });
  it('takes start/end and start/duration with offsets', () => {
    expect(parseInterval('2026-03-01T00:00:00+01:00/2026-03-02T00:00:00Z', now)).toEqual({
      start: new Date('2026-02-28T23:00:00Z'),
      end: new Date('2026-03-02T00:00:00Z'),
    });
    expect(parseInterval('2026-03-01T00:00:00Z/P1D', now)).toEqual({
      start: new Date('2026-03-01T00:00:00Z'),
      end: new Date('2026-03-02T00:00:00Z'),
    });
  });
  it('refuses what does not say when, or ends before it starts, with a message naming the part', () => {
    expect(() => parseInterval('P7D', now)).toThrow(IntervalError);
    expect(() => parseInterval('P7D/P1D', now)).toThrow(/two durations/);
    expect(() => parseInterval('P1M/now', now)).toThrow(/years or months/);
    expect(() => parseInterval('yesterday/now', now)).toThrow(/yesterday is neither/);
    expect(() => parseInterval('2026-03-01T00:00:00/now', now)).toThrow(/with its offset/);
    expect(() => parseInterval('now/2020-01-01T00:00:00Z', now)).toThrow(/ends before it starts/);
  });
});
