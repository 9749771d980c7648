import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { Country, Currency, DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { Discriminated } from '../../http/schemas/discriminated.ts';
import { DATE_PLACEHOLDERS } from './report-period.ts';

/**
 * The four report models (`spec.model`) and their `params` (docs/reports.md). Objects list their
 * keys with `propertyNames`, not `additionalProperties: false`: the validator drops undeclared keys
 * silently elsewhere (decision 0002), while here an unknown column, filter or parameter must be
 * a 422 that names it.
 */

export const TRANSACTION_COLUMNS = [
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
  'scheme',
  'payment_method_bin',
  'payment_method_last4',
  'payment_service_transaction_id',
  'payment_service_id',
  'payment_service_definition_id',
  'payment_service_display_name',
  'auth_response_code',
  'raw_response_code',
  'raw_response_description',
  'error_code',
  'metadata',
  'is_subsequent_payment',
  'merchant_initiated',
  'payment_source',
  'country',
  'three_d_secure_status',
  'three_d_secure_eci',
  'three_d_secure_auth_resp',
  'three_d_secure_method',
  'buyer_external_identifier',
  'billing_details_first_name',
  'billing_details_last_name',
  'billing_details_email_address',
  'billing_details_phone_number',
  'billing_details_address_city',
  'billing_details_address_country',
  'billing_details_address_postal_code',
  'billing_details_address_state',
  'billing_details_address_state_code',
  'billing_details_address_house_number_or_name',
  'billing_details_address_line1',
  'billing_details_address_line2',
  'billing_details_address_organization',
  'billing_details_tax_id',
  'billing_details_tax_id_kind',
  'authorized_amount',
  'intent',
  'intent_outcome',
  'gift_card_redemptions_amount',
  'settled',
  'settled_currency',
  'settled_amount',
] as const;
export type TransactionColumn = (typeof TRANSACTION_COLUMNS)[number];

/** Columns `sort` accepts for the transactions model (plain columns, each with an index or cheap to sort). */
export const TRANSACTION_SORT_COLUMNS = [
  'created_at',
  'updated_at',
  'authorized_at',
  'captured_at',
  'voided_at',
  'amount',
  'captured_amount',
  'refunded_amount',
  'authorized_amount',
  'settled_amount',
  'currency',
  'status',
  'method',
  'country',
  'external_identifier',
  'payment_service_id',
  'id',
] as const;
export type TransactionSortColumn = (typeof TRANSACTION_SORT_COLUMNS)[number];

export const TRANSACTION_STATUSES = [
  'processing',
  'buyer_approval_pending',
  'authorization_succeeded',
  'authorization_declined',
  'authorization_failed',
  'authorization_voided',
  'authorization_void_pending',
  'capture_succeeded',
  'capture_pending',
] as const;

/** An object whose keys are exactly those declared: an unknown key fails `propertyNames` and is named in the 422. */
function Closed<P extends TProperties>(properties: P, title: string, description?: string) {
  return Type.Object(properties, {
    title,
    propertyNames: { enum: Object.keys(properties) },
    ...(description ? { description } : {}),
  });
}

const Bound = (which: string) =>
  Type.Optional(
    Nullable(
      Type.Union([DateTime(), StringEnum(DATE_PLACEHOLDERS)], {
        description: `${which}: an ISO 8601 date-time with its offset, a placeholder (${DATE_PLACEHOLDERS.join(', ')}), or null (open)`,
      }),
    ),
  );

export const DateFilter = Closed(
  { start: Bound('Start, inclusive'), end: Bound('End, exclusive') },
  'ReportDateFilter',
  "A time range; placeholders resolve against the execution's reference time in the report's time zone",
);
export type DateFilter = Static<typeof DateFilter>;

const List = <T extends TSchema>(item: T, description: string) =>
  Type.Optional(Nullable(Type.Array(item, { minItems: 1, maxItems: 100, description })));
const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const Metadata = Type.Record(Type.String({ minLength: 1, maxLength: 40 }), Type.String({ maxLength: 200 }), {
  maxProperties: 20,
});

const TransactionFilters = Closed(
  {
    created_at: Opt(DateFilter),
    updated_at: Opt(DateFilter),
    authorized_at: Opt(DateFilter),
    captured_at: Opt(DateFilter),
    status: List(StringEnum(TRANSACTION_STATUSES), 'Any of these statuses'),
    currency: List(Currency(), 'Any of these currencies'),
    method: List(Type.String({ minLength: 1, maxLength: 50 }), 'Any of these payment methods (`card`, ...)'),
    scheme: List(Type.String({ minLength: 1, maxLength: 50 }), 'Any of these card schemes'),
    payment_service_id: List(Uuid(), 'Any of these payment services'),
    country: List(Country(), 'Any of these countries'),
    amount_gte: Opt(Type.Integer({ minimum: 0, description: 'Amount at least this (minor units)' })),
    amount_lte: Opt(Type.Integer({ minimum: 0, description: 'Amount at most this (minor units)' })),
    metadata: List(Metadata, 'Transactions whose metadata holds every pair of any one of these objects'),
    is_subsequent_payment: Opt(Type.Boolean()),
    merchant_initiated: Opt(Type.Boolean()),
    three_d_secure_status: List(Type.String({ minLength: 1, maxLength: 50 }), 'Any of these 3DS statuses'),
  },
  'TransactionsReportFilters',
);

const SortShorthand = StringEnum(
  [...TRANSACTION_SORT_COLUMNS, ...TRANSACTION_SORT_COLUMNS.map((c) => `-${c}` as const)],
  { description: 'Shorthand: a column, ascending; `-` in front: descending' },
);
export const SORT_ORDERS = ['asc', 'desc'] as const;
const SortField = Closed(
  {
    field: StringEnum(TRANSACTION_SORT_COLUMNS, { description: 'A sortable column' }),
    order: Type.Optional(StringEnum(SORT_ORDERS, { description: 'Default `asc`' })),
  },
  'TransactionsReportSort',
  'A sort key as the public API documents it: `{"field": "created_at", "order": "desc"}`',
);
/**
 * One sort key: the object form, or the string shorthand. An if/then/else on the type rather than
 * `anyOf`, so a bad key reports the errors of its own form only (its `loc` names the field or order).
 */
const SortKey = Type.Unsafe<Static<typeof SortField> | Static<typeof SortShorthand>>({
  if: { type: 'string' },
  then: SortShorthand,
  else: SortField,
});

const TransactionsParams = Closed(
  {
    fields: List(StringEnum(TRANSACTION_COLUMNS), 'Columns, in this order; null or absent: every column'),
    filters: Opt(TransactionFilters),
    sort: Type.Optional(
      Nullable(
        Type.Array(SortKey, {
          minItems: 1,
          maxItems: 5,
          description:
            'Sort keys, applied in list order (most significant first): `{field, order}` objects, or the shorthand strings; default `created_at` ascending; ties by id',
        }),
      ),
    ),
  },
  'TransactionsReportParams',
);

const CreatedAtOnly = Closed({ created_at: Opt(DateFilter) }, 'TransactionRetriesReportFilters');
const SettlementFilters = Closed(
  { ingested_at: Opt(DateFilter), posted_at: Opt(DateFilter), currency: List(Currency(), 'Any of these currencies') },
  'DetailedSettlementReportFilters',
);
const TimestampOnly = Closed(
  { timestamp: Opt(DateFilter), currency: List(Currency(), 'Any of these currencies') },
  'AccountsReceivablesReportFilters',
);

const Spec = <M extends string, P extends TSchema>(model: M, params: P, title: string, description: string) =>
  Type.Object({ model: Type.Literal(model), params }, { title, description, additionalProperties: false });

export const TransactionsSpec = Spec(
  'transactions',
  TransactionsParams,
  'TransactionsReportSpec',
  'One row per transaction',
);
export const TransactionRetriesSpec = Spec(
  'transaction_retries',
  Closed({ filters: Opt(CreatedAtOnly) }, 'TransactionRetriesReportParams'),
  'TransactionRetriesReportSpec',
  'One row per connector attempt of the transactions that failed over',
);
export const DetailedSettlementSpec = Spec(
  'detailed_settlement',
  Closed({ filters: Opt(SettlementFilters) }, 'DetailedSettlementReportParams'),
  'DetailedSettlementReportSpec',
  'One row per settlement and refund settlement',
);
export const AccountsReceivablesSpec = Spec(
  'accounts_receivables',
  Closed({ filters: Opt(TimestampOnly) }, 'AccountsReceivablesReportParams'),
  'AccountsReceivablesReportSpec',
  'Captured minus settled per day and currency',
);

export const REPORT_MODELS = [
  'transactions',
  'transaction_retries',
  'detailed_settlement',
  'accounts_receivables',
] as const;
export type ReportModel = (typeof REPORT_MODELS)[number];

export const ReportSpecBody = Discriminated(
  'model',
  REPORT_MODELS,
  [TransactionsSpec, TransactionRetriesSpec, DetailedSettlementSpec, AccountsReceivablesSpec],
  {
    title: 'ReportSpecCreate',
    description: 'What the report holds: `model` chooses the form of `params` (docs/reports.md)',
  },
);
export type ReportSpecBody = Static<typeof ReportSpecBody>;
export type TransactionsParams = Static<typeof TransactionsParams>;
export type TransactionsFilters = Static<typeof TransactionFilters>;
export type SettlementFilters = Static<typeof SettlementFilters>;
