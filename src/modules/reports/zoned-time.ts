/**
 * Calendar arithmetic in an IANA time zone with `Intl.DateTimeFormat` only (no library, no tz data of
 * our own: Node's ICU data is the zone database). Instants are `Date`s; local dates are plain
 * `{ year, month, day }` records. Midnights are found from the zone's offset at that moment, so a
 * daylight-saving change on the day is handled, including zones whose clocks skip midnight itself.
 */

export interface LocalDate {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
}

interface LocalParts extends LocalDate {
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `name` is an IANA zone this runtime knows (`Europe/Paris`, `Etc/UTC`). */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `timeZone` at `instant`. */
export function localParts(instant: Date, timeZone: string): LocalParts {
  const out: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(instant))
    if (part.type !== 'literal') out[part.type] = Number(part.value);
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour!,
    minute: out.minute!,
    second: out.second!,
  };
}

/** Offset of `timeZone` from UTC at `instant`, in milliseconds (east positive). */
function offsetAt(instant: Date, timeZone: string): number {
  const p = localParts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The first instant of local date `date` in `timeZone`: its midnight, or, where the clocks skip
 * midnight (a spring-forward at 00:00), the first instant after the gap.
 */
export function startOfLocalDay(date: LocalDate, timeZone: string): Date {
  const wall = Date.UTC(date.year, date.month - 1, date.day);
  // Two passes: the offset just before and just after the answer may differ on a change day.
  const candidates = [wall - offsetAt(new Date(wall), timeZone)];
  candidates.push(wall - offsetAt(new Date(candidates[0]!), timeZone));
  candidates.push(
    wall - offsetAt(new Date(wall - 12 * 3600_000), timeZone),
    wall - offsetAt(new Date(wall + 12 * 3600_000), timeZone),
  );
  const onDay = candidates
    .filter((t) => {
      const p = localParts(new Date(t), timeZone);
      return p.year === date.year && p.month === date.month && p.day === date.day;
    })
    .sort((a, b) => a - b);
  // Every candidate is the wall time 00:00 read with some offset of that day; the earliest one that
  // falls on the day is its start (after a gap at midnight, the instant the clocks jumped to).
  if (onDay.length === 0) throw new Error(`no start of day ${date.year}-${date.month}-${date.day} in ${timeZone}`);
  return new Date(onDay[0]!);
}

/** The local date `days` after `date` (negative: before). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The first day of the month `months` after the month of `date`. */
export function addMonths(date: LocalDate, months: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1 + months, 1));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: 1 };
}

/** ISO weekday of a local date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: LocalDate): number {
  const day = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return day === 0 ? 7 : day;
}

export const localDateOf = (instant: Date, timeZone: string): LocalDate => {
  const { year, month, day } = localParts(instant, timeZone);
  return { year, month, day };
};

const QUARTER_HOUR = 900_000;
const offsets = new Map<string, number>();

/**
 * The zone's offset at `instant`, cached per zone and UTC quarter hour: offsets change only on
 * quarter-hour boundaries (every zone's offset has been a multiple of 15 minutes since the 1970s),
 * so the cache is exact, and it saves the `Intl` call that dominates the cost of a report row.
 */
function cachedOffset(instant: Date, timeZone: string): number {
  const key = `${timeZone}|${Math.floor(instant.getTime() / QUARTER_HOUR)}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    if (offsets.size > 50_000) offsets.clear();
    offset = offsetAt(new Date(Math.floor(instant.getTime() / QUARTER_HOUR) * QUARTER_HOUR), timeZone);
    offsets.set(key, offset);
  }
  return offset;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `2024-03-31T02:30:00.000+02:00`: an instant as the wall clock of `timeZone` with its offset. */
export function formatLocal(instant: Date, timeZone: string): string {
  const offset = cachedOffset(instant, timeZone);
  const wall = new Date(instant.getTime() + offset);
  const offsetMin = Math.round(offset / 60_000);
  const abs = Math.abs(offsetMin);
  return `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}T${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}.${pad(wall.getUTCMilliseconds(), 3)}${offsetMin < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
