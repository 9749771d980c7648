import type { Expression } from 'kysely';
import type { Executor } from '../../../db/transaction.ts';
import { formatAmount } from '../../../lib/currencies.ts';
import type { CellValue } from '../csv.ts';
import { formatLocal } from '../zoned-time.ts';

/** How an execution renders: in the report's time zone, against its reference time, PII masked unless `revealPii`. */
export interface ReportView {
  timeZone: string;
  reference: Date;
  revealPii: boolean;
}

/**
 * One report model (`spec.model`): its header, the query that reads its rows in their final order
 * (run through a server-side cursor, see report-runner.service.ts) and how a row becomes CSV cells.
 * Queries select only the columns they render: no table holds a card number or security code, and
 * no model selects a secret, so no file can carry one.
 */
export interface ReportModelDef<P = Record<string, unknown>> {
  header(params: P): string[];
  query(db: Executor, merchantAccountId: string, params: P, view: ReportView): Expression<unknown>;
  cells(row: Record<string, unknown>, params: P, view: ReportView): CellValue[];
}

/** A minor-unit amount as decimal text without the currency (`1050`, `USD` → `10.50`). */
export function decimal(amount: number | null | undefined, currency: string | null | undefined): string | null {
  if (amount === null || amount === undefined || !currency) return null;
  try {
    return formatAmount(Number(amount), currency).slice(0, -(currency.length + 1));
  } catch {
    return null;
  }
}

/** An instant as the wall clock of the report's time zone, with its offset. */
export function stamp(value: unknown, view: ReportView): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(date.getTime()) ? null : formatLocal(date, view.timeZone);
}

export const text = (value: unknown): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : JSON.stringify(value);
