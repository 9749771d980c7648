import { ConnectorError } from '../connector.ts';

/**
 * Where a Braintree settlements run stands. A round reads one time window, (lower, upper], with
 * three searches in turn (settled transactions, settled refunds, disputes), each paged by
 * Braintree's `endCursor`. The window is fixed when the round starts, so paging is stable whatever
 * order Braintree returns; the next round starts at this round's upper bound. Times are
 * microseconds since the epoch: Braintree's timestamps carry microseconds, and a bound that
 * rounded them could read a line twice or miss it.
 */
export type SettlementPhase = 'transactions' | 'refunds' | 'disputes';

export interface SettlementCursor {
  phase: SettlementPhase;
  /** Exclusive lower bound (µs). */
  lower: number;
  /** Inclusive upper bound (µs); null: the round has not started (it starts at the next call). */
  upper: number | null;
  /** Braintree's `endCursor` of the page read last in this phase; null: the phase's first page. */
  after: string | null;
}

const PHASES: readonly SettlementPhase[] = ['transactions', 'refunds', 'disputes'];

/** The cursor of a first run: everything posted at or after `since`. */
export function firstCursor(since: Date): SettlementCursor {
  return { phase: 'transactions', lower: since.getTime() * 1000 - 1, upper: null, after: null };
}

export function encodeCursor(cursor: SettlementCursor): string {
  return `bt1:${Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url')}`;
}

export function decodeCursor(text: string): SettlementCursor {
  const invalid = () =>
    new ConnectorError('invalid_request', 'The Braintree settlements cursor is not one this connector wrote');
  if (!text.startsWith('bt1:')) throw invalid();
  let value: Partial<SettlementCursor>;
  try {
    value = JSON.parse(Buffer.from(text.slice(4), 'base64url').toString('utf8')) as Partial<SettlementCursor>;
  } catch {
    throw invalid();
  }
  const { phase, lower, upper, after } = value;
  if (!phase || !PHASES.includes(phase) || !Number.isSafeInteger(lower)) throw invalid();
  if (upper !== null && !Number.isSafeInteger(upper)) throw invalid();
  if (after !== null && typeof after !== 'string') throw invalid();
  return { phase, lower: lower!, upper: upper ?? null, after: after ?? null };
}

/** The position after a phase's last page: the next phase, or the next round (null: the round is over). */
export function nextPhase(cursor: SettlementCursor): SettlementCursor | null {
  const index = PHASES.indexOf(cursor.phase);
  return index < PHASES.length - 1 ? { ...cursor, phase: PHASES[index + 1]!, after: null } : null;
}

/** Microseconds of a Braintree timestamp (`2026-11-25T12:00:00.123456Z`), or null when it is not one. */
export function microsOf(timestamp: string): number | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(timestamp);
  if (!match) return null;
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (Number.isNaN(seconds)) return null;
  return seconds * 1000 + Number((match[2] ?? '').padEnd(6, '0').slice(0, 6));
}

/** A microsecond instant as a Braintree Timestamp input. */
export function timestampOf(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const fraction = String(micros - millis * 1000).padStart(3, '0');
  return new Date(millis).toISOString().replace('Z', `${fraction}Z`);
}

/** The first day whose start (00:00 UTC) is after `lower`, and the last whose start is at or before `upper`; null: none. */
export function daysOf(lower: number, upper: number): { from: string; to: string } | null {
  const dayMicros = 86_400_000_000;
  const first = (Math.floor(lower / dayMicros) + 1) * dayMicros;
  const last = Math.floor(upper / dayMicros) * dayMicros;
  if (first > last) return null;
  const day = (micros: number) => new Date(micros / 1000).toISOString().slice(0, 10);
  return { from: day(first), to: day(last) };
}

/** The instant a Braintree Date (`YYYY-MM-DD`) starts, in µs (00:00 UTC), or null when it is not one. */
export function dayStartOf(date: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return null;
  const millis = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(millis) ? null : millis * 1000;
}
