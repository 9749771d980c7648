import { describe, expect, it } from 'vitest';
import { resolvePlaceholder } from './report-period.ts';
import { nextExecutionAt } from './report-schedule.ts';
import { formatLocal, isTimeZone, startOfLocalDay } from './zoned-time.ts';

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('happy', () => {
  it('plans daily runs at local midnight across the spring-forward change in Europe/Paris (23-hour day)', () => {
    // 2024-03-31: clocks go from 02:00 CET (+01) to 03:00 CEST (+02).
    expect(iso(nextExecutionAt('daily', 'Europe/Paris', at('2024-03-30T12:00:00Z')))).toBe('2024-03-30T23:00:00.000Z');
    expect(iso(nextExecutionAt('daily', 'Europe/Paris', at('2024-03-30T23:00:00Z')))).toBe('2024-03-31T22:00:00.000Z');
    expect(iso(nextExecutionAt('daily', 'Europe/Paris', at('2024-03-31T22:00:00Z')))).toBe('2024-04-01T22:00:00.000Z');
  });

  it('plans daily runs across the fall-back change in America/New_York (25-hour day)', () => {
    // 2024-11-03: clocks go from 02:00 EDT (-04) back to 01:00 EST (-05).
    expect(iso(nextExecutionAt('daily', 'America/New_York', at('2024-11-02T04:00:00Z')))).toBe(
      '2024-11-03T04:00:00.000Z',
    );
    expect(iso(nextExecutionAt('daily', 'America/New_York', at('2024-11-03T04:00:00Z')))).toBe(
      '2024-11-04T05:00:00.000Z',
    );
  });

  it('finds the start of a day whose midnight does not exist (Africa/Cairo, 2023-04-28, 00:00 → 01:00)', () => {
    expect(iso(startOfLocalDay({ year: 2023, month: 4, day: 28 }, 'Africa/Cairo'))).toBe('2023-04-27T22:00:00.000Z');
    expect(formatLocal(startOfLocalDay({ year: 2023, month: 4, day: 28 }, 'Africa/Cairo'), 'Africa/Cairo')).toBe(
      '2023-04-28T01:00:00.000+03:00',
    );
  });

  it('plans weekly runs on Mondays and monthly runs on the 1st, at local midnight', () => {
    // Monday 2024-03-25 in Paris: the next Monday after it is 2024-04-01 (already summer time).
    expect(iso(nextExecutionAt('weekly', 'Europe/Paris', at('2024-03-24T23:00:00Z')))).toBe('2024-03-31T22:00:00.000Z');
    expect(iso(nextExecutionAt('weekly', 'Etc/UTC', at('2024-03-27T10:00:00Z')))).toBe('2024-04-01T00:00:00.000Z');
    expect(iso(nextExecutionAt('monthly', 'Australia/Sydney', at('2024-03-15T00:00:00Z')))).toBe(
      '2024-03-31T13:00:00.000Z',
    );
    expect(iso(nextExecutionAt('monthly', 'Etc/UTC', at('2024-12-31T23:59:59Z')))).toBe('2025-01-01T00:00:00.000Z');
    expect(nextExecutionAt('once', 'Etc/UTC', at('2024-12-31T23:59:59Z'))).toBeNull();
  });

  it('resolves placeholders to the last complete period before the reference time, in the zone', () => {
    const reference = at('2024-03-31T22:00:00Z'); // Monday 2024-04-01 00:00 in Paris
    expect(iso(resolvePlaceholder('day_start', reference, 'Europe/Paris'))).toBe('2024-03-30T23:00:00.000Z');
    expect(iso(resolvePlaceholder('day_end', reference, 'Europe/Paris'))).toBe('2024-03-31T22:00:00.000Z');
    expect(iso(resolvePlaceholder('week_start', reference, 'Europe/Paris'))).toBe('2024-03-24T23:00:00.000Z');
    expect(iso(resolvePlaceholder('week_end', reference, 'Europe/Paris'))).toBe('2024-03-31T22:00:00.000Z');
    expect(iso(resolvePlaceholder('month_start', reference, 'Europe/Paris'))).toBe('2024-02-29T23:00:00.000Z');
    expect(iso(resolvePlaceholder('month_end', reference, 'Europe/Paris'))).toBe('2024-03-31T22:00:00.000Z');
    expect(iso(resolvePlaceholder('now', reference, 'Europe/Paris'))).toBe(reference.toISOString());
  });
});

describe('errors', () => {
  it('knows IANA zones only', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Etc/UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('../etc/passwd')).toBe(false);
  });
});
