/**
 * ISO 8601 time intervals as the insights operations take them (`datetime_range`,
 * `samples_timestamp_interval`, a monitoring spec's window): `start/end`, `duration/end` or
 * `start/duration`, where a point is a date-time with its offset or one of `now`, `hour_start`
 * (the start of the current hour) and `hour_end` (the start of the next hour). A duration alone
 * is refused: it says how long, not when. Durations take weeks, days, hours, minutes and seconds;
 * years and months are refused because their length depends on the calendar.
 */

export interface Interval {
  start: Date;
  end: Date;
}

export class IntervalError extends Error {}

const HOUR_MS = 3_600_000;
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds of an ISO 8601 duration (`P7D`, `PT60M`, `P1DT12H`), or null when it is not one. */
export function parseDuration(text: string): number | null {
  if (text === 'P' || text.endsWith('T')) return null;
  const m = DURATION.exec(text);
  if (!m) return null;
  const [w, d, h, min, s] = m.slice(1).map((part) => Number(part ?? 0));
  const ms = ((((w! * 7 + d!) * 24 + h!) * 60 + min!) * 60 + s!) * 1000;
  return ms > 0 ? ms : null;
}

function parsePoint(text: string, now: Date): Date | null {
  const hourStart = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS;
  if (text === 'now') return now;
  if (text === 'hour_start') return new Date(hourStart);
  if (text === 'hour_end') return new Date(hourStart + HOUR_MS);
  if (!DATE_TIME.test(text)) return null;
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? null : at;
}

function describe(part: string): string {
  if (/^P\d*[YM]/.test(part) || /^P[^T]*M/.test(part))
    return `${part} counts years or months, whose length depends on the calendar; use weeks, days, hours or minutes`;
  return `${part} is neither a date-time with its offset (2025-03-25T00:00:00Z), now, hour_start or hour_end, nor a duration (P7D, PT60M)`;
}

/** Parses an interval relative to `now`; throws `IntervalError` with a message for the caller. */
export function parseInterval(text: string, now: Date): Interval {
  const parts = text.split('/');
  if (parts.length !== 2)
    throw new IntervalError(
      `${text} is not an interval: give start/end, duration/end or start/duration (e.g. P7D/hour_start)`,
    );
  const [a, b] = parts as [string, string];
  const [startAt, endAt] = [parsePoint(a, now), parsePoint(b, now)];
  const [startLength, endLength] = [parseDuration(a), parseDuration(b)];
  let interval: Interval;
  if (startAt && endAt) interval = { start: startAt, end: endAt };
  else if (startLength !== null && endAt) interval = { start: new Date(endAt.getTime() - startLength), end: endAt };
  else if (startAt && endLength !== null) interval = { start: startAt, end: new Date(startAt.getTime() + endLength) };
  else if (startLength !== null && endLength !== null)
    throw new IntervalError(
      `${text} gives two durations: one side must say when (a date-time, now, hour_start or hour_end)`,
    );
  else throw new IntervalError(describe(startAt || startLength !== null ? b : a));
  if (interval.end.getTime() <= interval.start.getTime()) throw new IntervalError(`${text} ends before it starts`);
  return interval;
}

/** The interval's length in milliseconds. */
export const lengthOf = (interval: Interval): number => interval.end.getTime() - interval.start.getTime();
