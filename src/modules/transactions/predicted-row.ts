import { isExpression } from 'kysely';
import { sameStoredValue } from '../../lib/same-stored-value.ts';
import type { TransactionRow, TransactionsTable } from '../../db/schema-transactions.ts';
import type { TransactionPatch } from './transactions.repo.ts';

/**
 * The row an update will leave, worked out before the update runs: the one-statement phase 3 of
 * `POST /transactions` (create-transaction.service.ts) writes the history events, the audit entry and
 * the webhook snapshot in the same statement as the update, so it renders them from this.
 */

/** JSON columns: a patch writes them as JSON text, a row read back holds the parsed value. */
const JSON_COLUMNS: ReadonlySet<keyof TransactionsTable> = new Set<keyof TransactionsTable>([
  'payment_method',
  'payment_service',
  'buyer',
  'shipping_details',
  'additional_identifiers',
  'metadata',
  'cart_items',
  'airline',
  'statement_descriptor',
  'three_d_secure',
  'recipient',
  'extra',
  'connection_options',
  'actions',
]);

export interface PredictedRow {
  row: TransactionRow;
  /** Columns the update sets with values: the only ones that can differ from the row it started from. */
  set: string[];
  /** Columns set by an SQL expression (such as `overCaptureLimit`): only the database knows them. */
  computed: string[];
}

/** Pure: `row` after `patch` and the `updated_at` the update writes. */
export function predictRow(row: TransactionRow, patch: TransactionPatch, updatedAt: Date): PredictedRow {
  const next: Record<string, unknown> = { ...row, updated_at: updatedAt };
  const set = ['updated_at'];
  const computed: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (isExpression(value)) {
      computed.push(key);
      continue;
    }
    next[key] =
      JSON_COLUMNS.has(key as keyof TransactionsTable) && typeof value === 'string' ? JSON.parse(value) : value;
    set.push(key);
  }
  return { row: next as unknown as TransactionRow, set, computed };
}

/**
 * Pure: the columns whose predicted value is not what the database returned (empty when the
 * prediction held). Only the columns the update sets are compared: the others are the row the
 * update started from (the table has no triggers or generated columns). Any table's row: a refund's
 * answer is predicted too (refund-transaction.service.ts).
 */
export function mispredicted<R extends object>(predicted: { row: R; set: readonly string[] }, actual: R): string[] {
  const stored = actual as unknown as Record<string, unknown>;
  const expected = predicted.row as unknown as Record<string, unknown>;
  // Dates by instant, objects whatever their key order (jsonb keeps its own).
  return predicted.set.filter((key) => !sameStoredValue(stored[key], expected[key]));
}
