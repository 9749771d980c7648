import { sql } from 'kysely';
import { resolveRange, type DateFilterJson } from '../report-period.ts';
import { decimal, text, type ReportModelDef } from './report-model.ts';

interface Params {
  filters?: { timestamp?: DateFilterJson | null; currency?: string[] | null } | null;
}

const HEADER = [
  'date',
  'currency',
  'captured_amount',
  'captured_amount_formatted',
  'settled_amount',
  'settled_amount_formatted',
  'receivable_amount',
  'receivable_amount_formatted',
  'outstanding_amount',
  'outstanding_amount_formatted',
];

/**
 * Per local day (in the report's time zone) and currency: what was captured (successful captures,
 * and authorizations of transactions made with intent `capture`), what was settled (capture
 * settlements by posting time), their difference, and the running total over the report's range:
 * what the merchant is still owed. `timestamp` bounds both the capture and the posting times.
 */
export const accountsReceivablesModel: ReportModelDef<Params> = {
  header: () => HEADER,
  query(_db, merchantAccountId, params, view) {
    const f = params.filters ?? {};
    const { gte, lt } = resolveRange(f.timestamp, view.reference, view.timeZone);
    const bounds = (column: string) =>
      sql`${gte ? sql`AND ${sql.ref(column)} >= ${gte}` : sql``} ${lt ? sql`AND ${sql.ref(column)} < ${lt}` : sql``}`;
    const currencies = (column: string) =>
      f.currency ? sql`AND ${sql.ref(column)} IN (${sql.join(f.currency)})` : sql``;
    const tz = view.timeZone;
    return sql`
      SELECT day, currency, sum(captured) AS captured, sum(settled) AS settled,
             sum(sum(captured) - sum(settled)) OVER (PARTITION BY currency ORDER BY day) AS outstanding
      FROM (
        SELECT to_char(a.created_at AT TIME ZONE ${tz}, 'YYYY-MM-DD') AS day, t.currency, a.amount AS captured, 0 AS settled
        FROM transaction_attempts a
        JOIN transactions t ON t.merchant_account_id = a.merchant_account_id AND t.id = a.transaction_id
        WHERE a.merchant_account_id = ${merchantAccountId} AND a.status = 'succeeded'
          AND (a.operation = 'capture' OR (a.operation = 'authorize' AND t.intent = 'capture'
               -- held for review (decision 0144): its authorization captured nothing
               AND t.anti_fraud_decision IS DISTINCT FROM 'review'))
          ${bounds('a.created_at')} ${currencies('t.currency')}
        UNION ALL
        SELECT to_char(s.posted_at AT TIME ZONE ${tz}, 'YYYY-MM-DD'), s.currency, 0, s.amount
        FROM settlements s
        WHERE s.merchant_account_id = ${merchantAccountId} AND s.refund_id IS NULL ${bounds('s.posted_at')} ${currencies('s.currency')}
      ) movements
      GROUP BY day, currency
      ORDER BY day, currency`;
  },
  cells(row) {
    const currency = row.currency as string;
    const amounts = [
      Number(row.captured),
      Number(row.settled),
      Number(row.captured) - Number(row.settled),
      Number(row.outstanding),
    ];
    return [text(row.day), currency, ...amounts.flatMap((amount) => [amount, decimal(amount, currency)])];
  },
};
