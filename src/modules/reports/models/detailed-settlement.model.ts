import { sql, type Expression, type SqlBool } from 'kysely';
import { resolveRange, type DateFilterJson } from '../report-period.ts';
import { decimal, stamp, text, type ReportModelDef, type ReportView } from './report-model.ts';
import { localDateOf } from '../zoned-time.ts';

interface Params {
  filters?: {
    ingested_at?: DateFilterJson | null;
    posted_at?: DateFilterJson | null;
    currency?: string[] | null;
  } | null;
}

const HEADER = [
  'settlement_id',
  'journal_type',
  'transaction_id',
  'refund_id',
  'transaction_external_identifier',
  'payment_service_transaction_id',
  'payment_service_id',
  'payment_service_definition_id',
  'payment_service_display_name',
  'method',
  'scheme',
  'currency',
  'gross_amount',
  'gross_amount_formatted',
  'fee_total',
  'fee_total_formatted',
  'fee_interchange',
  'fee_markup',
  'fee_scheme',
  'net_amount',
  'net_amount_formatted',
  'exchange_rate',
  'settled_date',
  'posted_at',
  'ingested_at',
  'report_id',
  'transaction_metadata',
];

function range(column: string, filter: DateFilterJson | null | undefined, view: ReportView): Expression<SqlBool>[] {
  const { gte, lt } = resolveRange(filter, view.reference, view.timeZone);
  return [
    ...(gte ? [sql<SqlBool>`${sql.ref(column)} >= ${gte}`] : []),
    ...(lt ? [sql<SqlBool>`${sql.ref(column)} < ${lt}`] : []),
  ];
}

/**
 * One row per settlement report line: a capture's settlement (`settlement`, positive gross), a
 * refund's (`refund`, negative gross), a chargeback (`chargeback`, negative gross) and its reversal
 * (`chargeback_reversal`, positive gross). Fees are the commission (interchange, markup and scheme
 * fee are its parts where the payment service reports them); net = gross − fees; `report_id` is the
 * provider's report (Stripe's payout, Adyen's report file, Braintree's disbursement, or the
 * sandbox's day). Sorted by posting time, then id.
 */
export const detailedSettlementModel: ReportModelDef<Params> = {
  header: () => HEADER,
  query(db, merchantAccountId, params, view) {
    const f = params.filters ?? {};
    let settlements = db
      .selectFrom('settlements as s')
      .innerJoin('transactions as t', (join) =>
        join.onRef('t.merchant_account_id', '=', 's.merchant_account_id').onRef('t.id', '=', 's.transaction_id'),
      )
      .select([
        's.id',
        's.transaction_id',
        's.refund_id',
        's.currency',
        's.amount',
        's.commission',
        's.interchange',
        's.markup',
        's.scheme_fee',
        's.exchange_rate',
        's.posted_at',
        's.ingested_at',
        's.payment_service_report_id',
      ])
      .select(sql<string>`CASE WHEN s.refund_id IS NULL THEN 'settlement' ELSE 'refund' END`.as('journal_type'))
      .select([
        't.external_identifier',
        't.payment_service_transaction_id',
        't.payment_service_id',
        't.payment_service',
        't.method',
        't.payment_method',
        't.metadata',
      ])
      .where('s.merchant_account_id', '=', merchantAccountId);
    let chargebacks = db
      .selectFrom('chargebacks as c')
      .innerJoin('transactions as t', (join) =>
        join.onRef('t.merchant_account_id', '=', 'c.merchant_account_id').onRef('t.id', '=', 'c.transaction_id'),
      )
      .select([
        'c.id',
        'c.transaction_id',
        sql<string | null>`NULL::uuid`.as('refund_id'),
        'c.currency',
        sql<number>`CASE WHEN c.kind = 'chargeback' THEN -c.amount ELSE c.amount END`.as('amount'),
      ])
      .select([
        'c.commission',
        'c.interchange',
        'c.markup',
        'c.scheme_fee',
        'c.exchange_rate',
        'c.posted_at',
        'c.ingested_at',
        'c.payment_service_report_id',
      ])
      .select(sql<string>`replace(c.kind, '-', '_')`.as('journal_type'))
      .select([
        't.external_identifier',
        't.payment_service_transaction_id',
        't.payment_service_id',
        't.payment_service',
        't.method',
        't.payment_method',
        't.metadata',
      ])
      .where('c.merchant_account_id', '=', merchantAccountId);
    for (const condition of [
      ...range('s.ingested_at', f.ingested_at, view),
      ...range('s.posted_at', f.posted_at, view),
    ])
      settlements = settlements.where(condition);
    for (const condition of [
      ...range('c.ingested_at', f.ingested_at, view),
      ...range('c.posted_at', f.posted_at, view),
    ])
      chargebacks = chargebacks.where(condition);
    if (f.currency) {
      settlements = settlements.where('s.currency', 'in', f.currency);
      chargebacks = chargebacks.where('c.currency', 'in', f.currency);
    }
    return db.selectFrom(settlements.unionAll(chargebacks).as('l')).selectAll().orderBy('l.posted_at').orderBy('l.id');
  },
  cells(row, _params, view) {
    const service = (row.payment_service as Record<string, unknown> | null) ?? {};
    const currency = row.currency as string;
    const gross = Number(row.amount);
    const fees = Number(row.commission ?? 0);
    const posted = row.posted_at instanceof Date ? row.posted_at : new Date(String(row.posted_at));
    const day = localDateOf(posted, view.timeZone);
    return [
      text(row.id),
      text(row.journal_type),
      text(row.transaction_id),
      text(row.refund_id),
      text(row.external_identifier),
      text(row.payment_service_transaction_id),
      text(row.payment_service_id),
      text(service.payment_service_definition_id),
      text(service.display_name),
      text(row.method),
      text((row.payment_method as Record<string, unknown> | null)?.scheme),
      currency,
      gross,
      decimal(gross, currency),
      fees,
      decimal(fees, currency),
      row.interchange === null ? null : Number(row.interchange),
      row.markup === null ? null : Number(row.markup),
      row.scheme_fee === null ? null : Number(row.scheme_fee),
      gross - fees,
      decimal(gross - fees, currency),
      row.exchange_rate === null ? null : String(row.exchange_rate),
      `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`,
      stamp(row.posted_at, view),
      stamp(row.ingested_at, view),
      text(row.payment_service_report_id),
      row.metadata ? JSON.stringify(row.metadata) : null,
    ];
  },
};
