import { Type, type Static, type TSchema } from 'typebox';
import {
  Country,
  Currency,
  Cursor,
  DateTime,
  ListEnvelope,
  MinorUnits,
  Nullable,
  PageLimit,
  StringEnum,
  Uuid,
} from '../../../http/schemas/common.ts';
import { CARD_SCHEME_PATTERN } from '../../../lib/cards/schemes.ts';
import { PAYMENT_SOURCES, TRANSACTION_STATUSES, TransactionSummarySchema } from '../transaction.schema.ts';

/**
 * The query of `GET /transactions` (list_transactions): every filter of the specification. Arrays
 * arrive as repeated keys (`status=a&status=b`); the query validator turns a single value into a
 * one-item array. Null or absent means "no filter". See decision 0065.
 */

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
/** Match any of the values. 50 values is far beyond any dashboard's need and bounds the SQL. */
const AnyOf = <T extends TSchema>(item: T, description: string) =>
  Opt(Type.Array(item, { minItems: 1, maxItems: 50, description }));
const Text = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 200, ...(description ? { description } : {}) });
const Flag = (description: string) => Opt(Type.Boolean({ description }));
const Minor = (description: string) => Opt(MinorUnits({ minimum: 0, maximum: 99_999_999, description }));
const At = (description: string) => Opt(DateTime({ description: `${description}; must carry a time zone offset` }));

export const ListTransactionsQuery = Type.Object({
  cursor: Type.Optional(Nullable(Cursor)),
  limit: PageLimit,
  amount_eq: Minor('amount equal to'),
  amount_gte: Minor('amount greater than or equal to'),
  amount_lte: Minor('amount less than or equal to'),
  buyer_email_address: Opt(Text('Case-insensitive exact match')),
  buyer_external_identifier: Opt(Text()),
  buyer_id: Opt(Uuid()),
  buyer_search: AnyOf(
    Text(),
    'Exact match on the buyer display name (ignoring case), external identifier, or e-mail address (ignoring case); match any',
  ),
  checkout_session_id: Opt(Uuid()),
  payment_link_id: Opt(Uuid({ description: 'Made through this payment link' })),
  country: AnyOf(Country(), 'Match any'),
  created_at_gte: At('Created at or after'),
  created_at_lte: At('Created at or before'),
  currency: AnyOf(Currency(), 'Match any'),
  disputed: Flag('Has been disputed'),
  error_code: AnyOf(Text(), 'Match any'),
  external_identifier: Opt(Text()),
  gift_card_id: Opt(Uuid({ description: 'A redeemed gift card has this id' })),
  gift_card_last4: Opt(
    Type.String({ pattern: '^[0-9]{4}$', description: 'Last 4 digits of a redeemed gift card number' }),
  ),
  has_gift_card_redemptions: Flag('Has gift card redemptions'),
  has_refunds: Flag('Has at least one refund'),
  has_settlements: Flag('Has at least one settlement record'),
  id: Opt(Uuid()),
  ip_address: Opt(Text()),
  is_subsequent_payment: Flag('Is a subsequent payment'),
  merchant_initiated: Flag('Merchant-initiated'),
  metadata: AnyOf(
    Type.String({ minLength: 2, maxLength: 5000 }),
    'Each a JSON object of string values; the transaction metadata contains all given pairs',
  ),
  method: AnyOf(Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 50 }), 'Match any'),
  payment_method_bin: Opt(
    Type.String({ pattern: '^[0-9]{6,8}$', description: 'Card BIN; 6 digits also match the 8-digit BINs they begin' }),
  ),
  payment_method_country: Opt(Country()),
  payment_method_fingerprint: Opt(Text()),
  payment_method_id: Opt(Uuid()),
  payment_method_label: Opt(Text('For cards, the last 4 digits')),
  payment_method_scheme: AnyOf(Type.String({ pattern: CARD_SCHEME_PATTERN, maxLength: 50 }), 'Match any'),
  payment_service_id: AnyOf(Uuid(), 'Match any'),
  payment_service_transaction_id: Opt(Text()),
  payment_source: AnyOf(StringEnum(PAYMENT_SOURCES), 'Match any'),
  pending_review: Flag('Pending manual anti-fraud review'),
  reconciliation_id: Opt(Text('Base62 reconciliation id; one that is not valid matches nothing')),
  search: Opt(
    Text(
      'Exact id, reconciliation id, external identifier, payment service transaction id, buyer external identifier or buyer e-mail (ignoring case)',
    ),
  ),
  status: AnyOf(StringEnum(TRANSACTION_STATUSES), 'Match any'),
  updated_at_gte: At('Updated at or after'),
  updated_at_lte: At('Updated at or before'),
  used_3ds: Flag('3DS authentication was attempted (true) or not (false)'),
});
export type ListTransactionsQuery = Static<typeof ListTransactionsQuery>;

export const TransactionSummariesSchema = ListEnvelope(TransactionSummarySchema, 'TransactionSummaries');
