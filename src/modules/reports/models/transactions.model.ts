import { sql, type Expression, type SqlBool } from 'kysely';
import { maskBillingDetails } from '../../buyers/pii-mask.ts';
import type { CellValue } from '../csv.ts';
import { resolveRange, type DateFilterJson } from '../report-period.ts';
import {
  TRANSACTION_COLUMNS,
  type TransactionColumn,
  type TransactionSortColumn,
  type TransactionsParams,
} from '../report-spec.schemas.ts';
import { decimal, stamp, text, type ReportModelDef, type ReportView } from './report-model.ts';

type Row = Record<string, unknown>;
type Column = { cells: (row: Row, view: ReportView, billing: Row | null) => CellValue[]; amount?: boolean };

const json = (row: Row, key: string): Row => (row[key] as Row | null) ?? {};
const at = (name: string): Column => ({ cells: (row, view) => [stamp(row[name], view)] });
const plain = (name: string): Column => ({ cells: (row) => [text(row[name])] });
const flag = (name: string): Column => ({
  cells: (row) => [row[name] === null || row[name] === undefined ? null : Boolean(row[name])],
});
const money = (name: string, currency = 'currency'): Column => ({
  amount: true,
  cells: (row) => [Number(row[name] ?? 0), decimal(Number(row[name] ?? 0), row[currency] as string | null)],
});
const billingText = (pick: (b: Row) => unknown): Column => ({
  cells: (_row, _view, billing) => [billing ? text(pick(billing)) : null],
});
const address = (key: string) => billingText((b) => (b.address as Row | null)?.[key]);

/** Every column: its cells (two for an amount: minor units, then `<name>_formatted`). */
const COLUMNS: Record<TransactionColumn, Column> = {
  id: plain('id'),
  external_identifier: plain('external_identifier'),
  status: plain('status'),
  created_at: at('created_at'),
  updated_at: at('updated_at'),
  authorized_at: at('authorized_at'),
  captured_at: at('captured_at'),
  voided_at: at('voided_at'),
  amount: money('amount'),
  currency: plain('currency'),
  captured_amount: money('captured_amount'),
  refunded_amount: money('refunded_amount'),
  method: plain('method'),
  scheme: { cells: (row) => [text(json(row, 'payment_method').scheme)] },
  payment_method_bin: { cells: (row) => [text(json(row, 'payment_method').bin)] },
  payment_method_last4: { cells: (row) => [text(json(row, 'payment_method').label)] },
  payment_service_transaction_id: plain('payment_service_transaction_id'),
  payment_service_id: plain('payment_service_id'),
  payment_service_definition_id: { cells: (row) => [text(json(row, 'payment_service').payment_service_definition_id)] },
  payment_service_display_name: { cells: (row) => [text(json(row, 'payment_service').display_name)] },
  auth_response_code: plain('auth_response_code'),
  raw_response_code: plain('raw_response_code'),
  raw_response_description: plain('raw_response_description'),
  error_code: plain('error_code'),
  metadata: { cells: (row) => [row.metadata ? JSON.stringify(row.metadata) : null] },
  is_subsequent_payment: flag('is_subsequent_payment'),
  merchant_initiated: flag('merchant_initiated'),
  payment_source: plain('payment_source'),
  country: plain('country'),
  three_d_secure_status: { cells: (row) => [text(json(row, 'three_d_secure').status)] },
  three_d_secure_eci: { cells: (row) => [text((json(row, 'three_d_secure').response_data as Row | null)?.eci)] },
  three_d_secure_auth_resp: {
    cells: (row) => [
      text(
        (json(row, 'three_d_secure').response_data as Row | null)?.authentication_response ??
          (json(row, 'three_d_secure').response_data as Row | null)?.trans_status,
      ),
    ],
  },
  three_d_secure_method: { cells: (row) => [text(json(row, 'three_d_secure').method)] },
  buyer_external_identifier: plain('buyer_external_identifier'),
  billing_details_first_name: billingText((b) => b.first_name),
  billing_details_last_name: billingText((b) => b.last_name),
  billing_details_email_address: billingText((b) => b.email_address),
  billing_details_phone_number: billingText((b) => b.phone_number),
  billing_details_address_city: address('city'),
  billing_details_address_country: address('country'),
  billing_details_address_postal_code: address('postal_code'),
  billing_details_address_state: address('state'),
  billing_details_address_state_code: address('state_code'),
  billing_details_address_house_number_or_name: address('house_number_or_name'),
  billing_details_address_line1: address('line1'),
  billing_details_address_line2: address('line2'),
  billing_details_address_organization: address('organization'),
  billing_details_tax_id: billingText((b) => (b.tax_id as Row | null)?.value),
  billing_details_tax_id_kind: billingText((b) => (b.tax_id as Row | null)?.kind),
  authorized_amount: money('authorized_amount'),
  intent: plain('intent'),
  // Null: in flight (decision 0154), pending as the API shows it.
  intent_outcome: { cells: (row) => [text(row.intent_outcome ?? 'pending')] },
  gift_card_redemptions_amount: money('gift_card_amount'),
  settled: flag('settled'),
  settled_currency: plain('settled_currency'),
  settled_amount: money('settled_amount', 'settled_currency'),
};

/** The table columns the query reads: never the whole row (no ciphertexts, no cart items). */
const SELECTED = [
  'id',
  'external_identifier',
  'status',
  'created_at',
  'updated_at',
  'authorized_at',
  'captured_at',
  'voided_at',
  'amount',
  'currency',
  'captured_amount',
  'refunded_amount',
  'method',
  'payment_method',
  'payment_service_transaction_id',
  'payment_service_id',
  'payment_service',
  'auth_response_code',
  'raw_response_code',
  'raw_response_description',
  'error_code',
  'metadata',
  'is_subsequent_payment',
  'merchant_initiated',
  'payment_source',
  'country',
  'three_d_secure',
  'buyer_external_identifier',
  'buyer',
  'authorized_amount',
  'intent',
  'intent_outcome',
  'gift_card_amount',
  'settled',
  'settled_currency',
  'settled_amount',
] as const;

const fieldsOf = (params: TransactionsParams): readonly TransactionColumn[] => params.fields ?? TRANSACTION_COLUMNS;

function range(name: string, filter: DateFilterJson | null | undefined, view: ReportView): Expression<SqlBool>[] {
  const { gte, lt } = resolveRange(filter, view.reference, view.timeZone);
  return [
    ...(gte ? [sql<SqlBool>`${sql.ref(name)} >= ${gte}`] : []),
    ...(lt ? [sql<SqlBool>`${sql.ref(name)} < ${lt}`] : []),
  ];
}

const anyOf = (
  expression: Expression<unknown>,
  values: readonly unknown[] | null | undefined,
): Expression<SqlBool>[] => (values ? [sql<SqlBool>`${expression} IN (${sql.join(values)})`] : []);

/** The WHERE conditions of the filters; each is a plain comparison the planner can use an index for. */
function conditions(params: TransactionsParams, view: ReportView): Expression<SqlBool>[] {
  const f = params.filters ?? {};
  return [
    ...range('created_at', f.created_at, view),
    ...range('updated_at', f.updated_at, view),
    ...range('authorized_at', f.authorized_at, view),
    ...range('captured_at', f.captured_at, view),
    ...anyOf(sql.ref('status'), f.status),
    ...anyOf(sql.ref('currency'), f.currency),
    ...anyOf(sql.ref('method'), f.method),
    ...anyOf(sql`payment_method->>'scheme'`, f.scheme),
    ...anyOf(sql.ref('payment_service_id'), f.payment_service_id),
    ...anyOf(sql.ref('country'), f.country),
    ...anyOf(sql`three_d_secure->>'status'`, f.three_d_secure_status),
    ...(f.amount_gte !== null && f.amount_gte !== undefined ? [sql<SqlBool>`amount >= ${f.amount_gte}`] : []),
    ...(f.amount_lte !== null && f.amount_lte !== undefined ? [sql<SqlBool>`amount <= ${f.amount_lte}`] : []),
    ...(f.is_subsequent_payment !== null && f.is_subsequent_payment !== undefined
      ? [sql<SqlBool>`is_subsequent_payment = ${f.is_subsequent_payment}`]
      : []),
    ...(f.merchant_initiated !== null && f.merchant_initiated !== undefined
      ? [sql<SqlBool>`merchant_initiated = ${f.merchant_initiated}`]
      : []),
    ...(f.metadata
      ? [
          sql<SqlBool>`(${sql.join(
            f.metadata.map((m) => sql`metadata @> ${JSON.stringify(m)}::jsonb`),
            sql` OR `,
          )})`,
        ]
      : []),
  ];
}

type SortKey = NonNullable<TransactionsParams['sort']>[number];

/** A sort key as `{field, order}`: the object form as sent (order `asc` by default), or the shorthand (`-` in front: descending). */
export function sortKeyOf(key: SortKey): { field: TransactionSortColumn; order: 'asc' | 'desc' } {
  if (typeof key !== 'string') return { field: key.field, order: key.order ?? 'asc' };
  return key.startsWith('-')
    ? { field: key.slice(1) as TransactionSortColumn, order: 'desc' }
    : { field: key as TransactionSortColumn, order: 'asc' };
}

/** `sort` keys in list order, then id, so the order is total and repeatable. */
function orderBy(params: TransactionsParams) {
  const keys = (params.sort ?? ['created_at']).map(sortKeyOf);
  const parts = keys.map(({ field, order }) =>
    order === 'desc' ? sql`${sql.ref(field)} DESC NULLS LAST` : sql`${sql.ref(field)} ASC NULLS LAST`,
  );
  if (!keys.some((k) => k.field === 'id')) parts.push(sql`id ASC`);
  return sql.join(parts);
}

export const transactionsModel: ReportModelDef<TransactionsParams> = {
  header: (params) => fieldsOf(params).flatMap((name) => (COLUMNS[name].amount ? [name, `${name}_formatted`] : [name])),
  query(db, merchantAccountId, params, view) {
    // Two branches (decision 0154): the answered rows, which the partial filter indexes hold, and
    // those awaiting their connector's answer (transactions_in_flight_idx); a report has both.
    const branch = (inFlight: boolean) => {
      let query = db
        .selectFrom('transactions')
        .select([...SELECTED])
        .where('merchant_account_id', '=', merchantAccountId)
        .where('intent_outcome', inFlight ? 'is' : 'is not', null);
      for (const condition of conditions(params, view)) query = query.where(condition);
      return query;
    };
    return db
      .selectFrom(branch(false).unionAll(branch(true)).as('t'))
      .selectAll()
      .orderBy(orderBy(params));
  },
  cells(row, params, view) {
    const details = ((row.buyer as Row | null)?.billing_details as Row | null) ?? null;
    const billing = details && !view.revealPii ? (maskBillingDetails(details) as Row) : details;
    return fieldsOf(params).flatMap((name) => COLUMNS[name].cells(row, view, billing));
  },
};
