import { sql, type ExpressionBuilder, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { keysetPage, type KeysetPage } from '../../../db/keyset.ts';
import type { Executor } from '../../../db/transaction.ts';
import type { CursorPosition } from '../../../http/cursor.ts';
import { decodeTransactionRows } from '../snapshot-codec.ts';

/**
 * The filtered list of transactions, newest update first. Every filter is optional; the service
 * has already parsed and checked the values (metadata objects, ids decoded from base62). Each filter
 * group is one small function below, written with the exact expressions of the indexes of
 * migrations 0011 and 0013 so the planner can use them (decision 0065).
 */
export interface TransactionFilter {
  /** Every one of these must equal the id (`id`, and `reconciliation_id` decoded). */
  ids: string[];
  /** A filter that cannot match (an invalid reconciliation id). */
  matchesNothing: boolean;
  amount: { eq?: number; gte?: number; lte?: number };
  createdAt: { gte?: Date; lte?: Date };
  updatedAt: { gte?: Date; lte?: Date };
  /** Column = value, for the plain columns. */
  equals: Partial<Record<EqualColumn, string>>;
  /** Column IN values (match any). */
  anyOf: Partial<Record<AnyOfColumn, string[]>>;
  flags: Partial<Record<FlagColumn, boolean>>;
  used3ds?: boolean;
  buyerEmailAddress?: string;
  buyerSearch?: string[];
  paymentMethod: { bin?: string; country?: string; label?: string; schemes?: string[] };
  metadata: Record<string, string>[];
  related: {
    hasRefunds?: boolean;
    hasSettlements?: boolean;
    hasGiftCardRedemptions?: boolean;
    giftCardId?: string;
    giftCardLast4?: string;
  };
  /** Free text: see `searchClause`. `ids` are the uuids the text may stand for (itself, or base62 decoded). */
  search?: { text: string; ids: string[] };
}

export type EqualColumn =
  | 'buyer_id'
  | 'buyer_external_identifier'
  | 'checkout_session_id'
  | 'payment_link_id'
  | 'external_identifier'
  | 'ip_address'
  | 'payment_method_id'
  | 'card_fingerprint'
  | 'payment_service_transaction_id';
export type AnyOfColumn =
  | 'status'
  | 'country'
  | 'currency'
  | 'error_code'
  | 'method'
  | 'payment_source'
  | 'payment_service_id';
export type FlagColumn = 'disputed' | 'pending_review' | 'merchant_initiated' | 'is_subsequent_payment';

type Query = SelectQueryBuilder<Database, 'transactions', TransactionRow>;
type Eb = ExpressionBuilder<Database, 'transactions'>;

// The JSON paths of the payment method snapshot, as the indexes of migration 0013 spell them.
const pmBin = sql<string>`(payment_method->>'bin')`;
const pmLabel = sql<string>`(payment_method->>'label')`;
const pmCountry = sql<string>`(payment_method->>'country')`;
const pmScheme = sql<string>`(payment_method->>'scheme')`;
const buyerName = sql<string>`lower(buyer->>'display_name')`;
const buyerEmail = sql<string>`lower(buyer_email_address)`;
// lower() runs in SQL on both sides so that case folds the same way, whatever the locale.
const lowered = (values: string[]) => values.map((v) => sql<string>`lower(${v})`);

function byIdentity(query: Query, f: TransactionFilter): Query {
  if (f.matchesNothing) query = query.where(sql<boolean>`false`);
  for (const id of f.ids) query = query.where('id', '=', id);
  for (const [column, value] of Object.entries(f.equals) as [EqualColumn, string][])
    query = query.where(column, '=', value);
  return query;
}

function byRanges(query: Query, f: TransactionFilter): Query {
  if (f.amount.eq !== undefined) query = query.where('amount', '=', f.amount.eq);
  if (f.amount.gte !== undefined) query = query.where('amount', '>=', f.amount.gte);
  if (f.amount.lte !== undefined) query = query.where('amount', '<=', f.amount.lte);
  if (f.createdAt.gte) query = query.where('created_at', '>=', f.createdAt.gte);
  if (f.createdAt.lte) query = query.where('created_at', '<=', f.createdAt.lte);
  if (f.updatedAt.gte) query = query.where('updated_at', '>=', f.updatedAt.gte);
  if (f.updatedAt.lte) query = query.where('updated_at', '<=', f.updatedAt.lte);
  return query;
}

function byValues(query: Query, f: TransactionFilter): Query {
  for (const [column, values] of Object.entries(f.anyOf) as [AnyOfColumn, string[]][])
    query = query.where(column, 'in', values);
  for (const [column, value] of Object.entries(f.flags) as [FlagColumn, boolean][])
    query = query.where(column, '=', value);
  if (f.used3ds !== undefined) query = query.where('three_d_secure', f.used3ds ? 'is not' : 'is', null);
  return query;
}

function byBuyer(query: Query, f: TransactionFilter): Query {
  if (f.buyerEmailAddress !== undefined)
    query = query.where(buyerEmail, '=', sql<string>`lower(${f.buyerEmailAddress})`);
  const terms = f.buyerSearch;
  if (terms && terms.length > 0) {
    // Three index-backed branches (BitmapOr): display name and e-mail ignoring case, external identifier exactly.
    query = query.where((eb) =>
      eb.or([
        eb(buyerName, 'in', lowered(terms)),
        eb('buyer_external_identifier', 'in', terms),
        eb(buyerEmail, 'in', lowered(terms)),
      ]),
    );
  }
  return query;
}

function byPaymentMethod(query: Query, f: TransactionFilter): Query {
  const pm = f.paymentMethod;
  // Digits only (schema pattern), so the value needs no LIKE escaping; a prefix is an index range scan.
  if (pm.bin !== undefined) query = query.where(pmBin, 'like', `${pm.bin}%`);
  if (pm.label !== undefined) query = query.where(pmLabel, '=', pm.label);
  if (pm.country !== undefined) query = query.where(pmCountry, '=', pm.country);
  if (pm.schemes !== undefined) query = query.where(pmScheme, 'in', pm.schemes);
  return query;
}

function byMetadata(query: Query, f: TransactionFilter): Query {
  // One containment per value (GIN index): two values naming the same key with different values match nothing, as they should.
  for (const pairs of f.metadata) query = query.where(sql<boolean>`metadata @> ${JSON.stringify(pairs)}::jsonb`);
  return query;
}

type Related = 'refunds' | 'settlements' | 'gift_card_redemptions';

/** EXISTS on the (merchant_account_id, transaction_id, …) index of the related table. */
function hasRelated(eb: Eb, table: Related) {
  return eb.exists(
    eb
      .selectFrom(table)
      .select(sql`1`.as('one'))
      .whereRef(`${table}.merchant_account_id`, '=', 'transactions.merchant_account_id')
      .whereRef(`${table}.transaction_id`, '=', 'transactions.id'),
  );
}

/** A redemption of this transaction whose column has the value (gift card id or last 4 digits). */
function hasRedemption(eb: Eb, column: 'gift_card_id' | 'last4', value: string) {
  return eb.exists(
    eb
      .selectFrom('gift_card_redemptions as r')
      .select(sql`1`.as('one'))
      .whereRef('r.merchant_account_id', '=', 'transactions.merchant_account_id')
      .whereRef('r.transaction_id', '=', 'transactions.id')
      .where(`r.${column}`, '=', value),
  );
}

function byRelated(query: Query, f: TransactionFilter): Query {
  const r = f.related;
  const flags: [boolean | undefined, Related][] = [
    [r.hasRefunds, 'refunds'],
    [r.hasSettlements, 'settlements'],
    [r.hasGiftCardRedemptions, 'gift_card_redemptions'],
  ];
  for (const [flag, table] of flags) {
    if (flag !== undefined) query = query.where((eb) => (flag ? hasRelated(eb, table) : eb.not(hasRelated(eb, table))));
  }
  if (r.giftCardId !== undefined) query = query.where((eb) => hasRedemption(eb, 'gift_card_id', r.giftCardId!));
  if (r.giftCardLast4 !== undefined) query = query.where((eb) => hasRedemption(eb, 'last4', r.giftCardLast4!));
  return query;
}

/** `search`: one value against the transaction's identifiers and the buyer's; each branch has its index. */
function bySearch(query: Query, f: TransactionFilter): Query {
  const s = f.search;
  if (!s) return query;
  return query.where((eb) =>
    eb.or([
      ...(s.ids.length > 0 ? [eb('id', 'in', s.ids)] : []),
      eb('external_identifier', '=', s.text),
      eb('payment_service_transaction_id', '=', s.text),
      eb('buyer_external_identifier', '=', s.text),
      eb(buyerEmail, '=', sql<string>`lower(${s.text})`),
    ]),
  );
}

/**
 * The filtered query, unordered (keysetPage adds the order), over the answered rows (`answered`:
 * read from the partial filter indexes) or the rows awaiting their connector's answer (the small
 * transactions_in_flight_idx): decision 0154. The two branches split the rows.
 */
export function transactionsQuery(
  db: Executor,
  merchantAccountId: string,
  f: TransactionFilter,
  branch: 'answered' | 'in_flight',
): Query {
  let query = db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('intent_outcome', branch === 'answered' ? 'is not' : 'is', null);
  for (const apply of [byIdentity, byRanges, byValues, byBuyer, byPaymentMethod, byMetadata, byRelated, bySearch])
    query = apply(query, f);
  return query;
}

/** Both branches of the list, answered first; exported for the EXPLAIN test. */
export function transactionsBranches(db: Executor, merchantAccountId: string, f: TransactionFilter): Query[] {
  return [
    transactionsQuery(db, merchantAccountId, f, 'answered'),
    transactionsQuery(db, merchantAccountId, f, 'in_flight'),
  ];
}

export const LIST_ORDER: ['updated_at', 'id'] = ['updated_at', 'id'];

export async function listTransactions(
  db: Executor,
  merchantAccountId: string,
  f: TransactionFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<TransactionRow>> {
  const page = await keysetPage(db, transactionsBranches(db, merchantAccountId, f), {
    columns: LIST_ORDER,
    limit,
    position,
  });
  decodeTransactionRows(page.rows);
  return page;
}
