import { addDays, addMonths, isoWeekday, localDateOf, startOfLocalDay } from './zoned-time.ts';

export const REPORT_SCHEDULES = ['once', 'daily', 'weekly', 'monthly'] as const;
export type ReportSchedule = (typeof REPORT_SCHEDULES)[number];

/**
 * When a scheduled report runs next after `after` (strictly later): the next local midnight
 * (`daily`), the next Monday's (`weekly`) or the next 1st of a month's (`monthly`) in `timeZone`.
 * `once` has no next run: it runs when created (or when enabled), then never again.
 */
export function nextExecutionAt(schedule: ReportSchedule, timeZone: string, after: Date): Date | null {
  if (schedule === 'once') return null;
  const today = localDateOf(after, timeZone);
  for (let step = 0; step < 3; step++) {
    let candidate = today;
    if (schedule === 'daily') candidate = addDays(today, 1 + step);
    if (schedule === 'weekly') candidate = addDays(today, ((8 - isoWeekday(today)) % 7 || 7) + 7 * step);
    if (schedule === 'monthly') candidate = addMonths(today, 1 + step);
    const at = startOfLocalDay(candidate, timeZone);
    if (at.getTime() > after.getTime()) return at;
  }
  throw new Error(`no next ${schedule} run after ${after.toISOString()} in ${timeZone}`);
}
