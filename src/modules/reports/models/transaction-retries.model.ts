import { sql } from 'kysely';
import type { DateFilterJson } from '../report-period.ts';
import { resolveRange } from '../report-period.ts';
import { decimal, stamp, text, type ReportModelDef } from './report-model.ts';

interface Params {
  filters?: { created_at?: DateFilterJson | null } | null;
}

const HEADER = [
  'transaction_id',
  'transaction_external_identifier',
  'attempt_number',
  'attempts',
  'attempted_at',
  'payment_service_id',
  'payment_service_definition_id',
  'payment_service_display_name',
  'outcome',
  'error_code',
  'raw_response_code',
  'raw_response_description',
  'retry_reason',
  'next_payment_service_id',
  'amount',
  'amount_formatted',
  'currency',
  'transaction_status',
];

/**
 * One row per authorization attempt of the transactions that failed over (more than one attempt):
 * which service was tried, its outcome, and why the next one was tried (the failover decision the
 * transaction's actions record for that attempt). Sorted by attempt time, then attempt number.
 * `created_at` filters the attempts' time; a transaction's attempts are numbered over all of them.
 */
export const transactionRetriesModel: ReportModelDef<Params> = {
  header: () => HEADER,
  query(_db, merchantAccountId, params, view) {
    const { gte, lt } = resolveRange(params.filters?.created_at, view.reference, view.timeZone);
    const within = sql`${gte ? sql`AND created_at >= ${gte}` : sql``} ${lt ? sql`AND created_at < ${lt}` : sql``}`;
    return sql`
      SELECT * FROM (
        SELECT a.id, a.transaction_id, a.created_at, a.status, a.amount, a.payment_service_id, a.error_code, a.raw_response_code, a.raw_response_description,
               t.external_identifier, t.currency, t.status AS transaction_status, ps.payment_service_definition_id, ps.display_name AS payment_service_display_name,
               row_number() OVER (PARTITION BY a.transaction_id ORDER BY a.created_at, a.id) AS attempt_number,
               count(*) OVER (PARTITION BY a.transaction_id) AS attempts,
               (SELECT f->'outcome'->'failover' FROM jsonb_array_elements(t.actions) f WHERE f->'outcome'->'failover'->>'attempt_id' = a.id::text LIMIT 1) AS failover
        FROM transaction_attempts a
        JOIN transactions t ON t.merchant_account_id = a.merchant_account_id AND t.id = a.transaction_id
        LEFT JOIN payment_services ps ON ps.merchant_account_id = a.merchant_account_id AND ps.id = a.payment_service_id
        WHERE a.merchant_account_id = ${merchantAccountId} AND a.operation = 'authorize'
          AND a.transaction_id IN (SELECT transaction_id FROM transaction_attempts WHERE merchant_account_id = ${merchantAccountId} AND operation = 'authorize' ${within})
      ) r
      WHERE attempts > 1 ${within}
      ORDER BY created_at, attempt_number, id`;
  },
  cells(row, _params, view) {
    const failover = (row.failover as Record<string, unknown> | null) ?? null;
    return [
      text(row.transaction_id),
      text(row.external_identifier),
      Number(row.attempt_number),
      Number(row.attempts),
      stamp(row.created_at, view),
      text(row.payment_service_id),
      text(row.payment_service_definition_id),
      text(row.payment_service_display_name),
      text(row.status),
      text(row.error_code),
      text(row.raw_response_code),
      text(row.raw_response_description),
      text(failover?.reason),
      text(failover?.to),
      Number(row.amount),
      decimal(Number(row.amount), row.currency as string),
      text(row.currency),
      text(row.transaction_status),
    ];
  },
};
