import { addDays, addMonths, isoWeekday, localDateOf, startOfLocalDay } from './zoned-time.ts';

/**
 * Date-time placeholders of report filters, resolved against the execution's reference time in the
 * report's time zone (docs/reports.md). Each `*_start`/`*_end` pair is the last complete period
 * before the reference time: for a daily report run at midnight, `day_start`..`day_end` is the day
 * that just ended. Ends are exclusive.
 */
export const DATE_PLACEHOLDERS = [
  'now',
  'day_start',
  'day_end',
  'week_start',
  'week_end',
  'month_start',
  'month_end',
] as const;
export type DatePlaceholder = (typeof DATE_PLACEHOLDERS)[number];

/** A filter value: an ISO 8601 instant with its offset, a placeholder, or null (open). */
export interface DateFilterJson {
  start?: string | null;
  end?: string | null;
}

export interface ResolvedRange {
  /** Inclusive. */
  gte: Date | null;
  /** Exclusive. */
  lt: Date | null;
}

export function resolvePlaceholder(name: DatePlaceholder, reference: Date, timeZone: string): Date {
  const today = localDateOf(reference, timeZone);
  switch (name) {
    case 'now':
      return reference;
    case 'day_start':
      return startOfLocalDay(addDays(today, -1), timeZone);
    case 'day_end':
      return startOfLocalDay(today, timeZone);
    case 'week_start':
      return startOfLocalDay(addDays(today, 1 - isoWeekday(today) - 7), timeZone);
    case 'week_end':
      return startOfLocalDay(addDays(today, 1 - isoWeekday(today)), timeZone);
    case 'month_start':
      return startOfLocalDay(addMonths(today, -1), timeZone);
    case 'month_end':
      return startOfLocalDay(addMonths(today, 0), timeZone);
  }
}

export const isPlaceholder = (value: string): value is DatePlaceholder =>
  (DATE_PLACEHOLDERS as readonly string[]).includes(value);

function resolveValue(value: string | null | undefined, reference: Date, timeZone: string): Date | null {
  if (value === null || value === undefined) return null;
  return isPlaceholder(value) ? resolvePlaceholder(value, reference, timeZone) : new Date(value);
}

export function resolveRange(
  filter: DateFilterJson | null | undefined,
  reference: Date,
  timeZone: string,
): ResolvedRange {
  if (!filter) return { gte: null, lt: null };
  return { gte: resolveValue(filter.start, reference, timeZone), lt: resolveValue(filter.end, reference, timeZone) };
}

/** What is wrong with a date filter beyond its schema, or null: both ends open, or an absolute start after an absolute end. */
export function dateFilterProblem(filter: DateFilterJson): { at: 'start' | 'end' | null; message: string } | null {
  const start = filter.start ?? null;
  const end = filter.end ?? null;
  if (start === null && end === null)
    return { at: null, message: 'start and end cannot both be null: give at least one bound' };
  if (
    start !== null &&
    end !== null &&
    !isPlaceholder(start) &&
    !isPlaceholder(end) &&
    Date.parse(start) > Date.parse(end)
  ) {
    return { at: 'start', message: `start (${start}) is after end (${end})` };
  }
  return null;
}
