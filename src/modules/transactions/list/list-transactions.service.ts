import type { RequestContext } from '../../../context.ts';
import { fieldRefusal } from '../../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../../http/pagination.ts';
import { base62ToUuid } from '../../../lib/base62.ts';
import { canReadPersonalData } from '../../buyers/buyers.service.ts';
import * as repo from './list-transactions.repo.ts';
import type { AnyOfColumn, EqualColumn, FlagColumn, TransactionFilter } from './list-transactions.repo.ts';
import type { ListTransactionsQuery } from './list-transactions.schema.ts';
import { toTransactionSummary } from '../transaction.resource.ts';
import { withGiftCards } from '../transaction-view.ts';
import type { TransactionSummary } from '../transaction.schema.ts';

type Query = ListTransactionsQuery;

/** Query parameter → column, for the filters that are a plain comparison. */
const EQUALS: [keyof Query, EqualColumn][] = [
  ['buyer_id', 'buyer_id'],
  ['buyer_external_identifier', 'buyer_external_identifier'],
  ['checkout_session_id', 'checkout_session_id'],
  ['payment_link_id', 'payment_link_id'],
  ['external_identifier', 'external_identifier'],
  ['ip_address', 'ip_address'],
  ['payment_method_id', 'payment_method_id'],
  ['payment_method_fingerprint', 'card_fingerprint'],
  ['payment_service_transaction_id', 'payment_service_transaction_id'],
];
const ANY_OF: [keyof Query, AnyOfColumn][] = [
  ['status', 'status'],
  ['country', 'country'],
  ['currency', 'currency'],
  ['error_code', 'error_code'],
  ['method', 'method'],
  ['payment_source', 'payment_source'],
  ['payment_service_id', 'payment_service_id'],
];
const FLAGS: FlagColumn[] = ['disputed', 'pending_review', 'merchant_initiated', 'is_subsequent_payment'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;
const opt = <T>(value: T | null | undefined): T | undefined => (given(value) ? value : undefined);
const date = (value: string | null | undefined) => (given(value) ? new Date(value) : undefined);

/** The uuid a reconciliation id (base62) stands for, or null when it is not one. */
function fromBase62(value: string): string | null {
  try {
    return base62ToUuid(value);
  } catch {
    return null;
  }
}

/** Each `metadata` value must be a JSON object of string values: anything else is 400 naming it. */
function parseMetadata(values: string[]): Record<string, string>[] {
  return values.map((value, index) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = undefined;
    }
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    if (!isObject || !Object.values(parsed as object).every((v) => typeof v === 'string')) {
      const message = 'metadata must be a JSON object with string values, e.g. {"order_id":"42"}';
      throw fieldRefusal('query', `/metadata/${index}`, message, 'metadata_invalid');
    }
    return parsed as Record<string, string>;
  });
}

/** `search` may be the id itself or its reconciliation id: the uuids it can stand for. */
function searchIds(text: string): string[] {
  const decoded = fromBase62(text);
  return [...(UUID.test(text) ? [text.toLowerCase()] : []), ...(decoded ? [decoded] : [])];
}

function pick<C extends string, V>(query: Query, pairs: [keyof Query, C][]): Partial<Record<C, V>> {
  return Object.fromEntries(
    pairs.filter(([param]) => given(query[param])).map(([param, column]) => [column, query[param]]),
  ) as Partial<Record<C, V>>;
}

export function toFilter(query: Query): TransactionFilter {
  const reconciliation = given(query.reconciliation_id) ? fromBase62(query.reconciliation_id) : undefined;
  return {
    ids: [query.id, reconciliation].filter(given),
    matchesNothing: reconciliation === null,
    amount: { eq: opt(query.amount_eq), gte: opt(query.amount_gte), lte: opt(query.amount_lte) },
    createdAt: { gte: date(query.created_at_gte), lte: date(query.created_at_lte) },
    updatedAt: { gte: date(query.updated_at_gte), lte: date(query.updated_at_lte) },
    equals: pick<EqualColumn, string>(query, EQUALS),
    anyOf: pick<AnyOfColumn, string[]>(query, ANY_OF),
    flags: pick<FlagColumn, boolean>(
      query,
      FLAGS.map((flag) => [flag, flag]),
    ),
    used3ds: opt(query.used_3ds),
    buyerEmailAddress: opt(query.buyer_email_address),
    buyerSearch: opt(query.buyer_search),
    paymentMethod: {
      bin: opt(query.payment_method_bin),
      country: opt(query.payment_method_country),
      label: opt(query.payment_method_label),
      schemes: opt(query.payment_method_scheme),
    },
    metadata: parseMetadata(query.metadata ?? []),
    related: {
      hasRefunds: opt(query.has_refunds),
      hasSettlements: opt(query.has_settlements),
      hasGiftCardRedemptions: opt(query.has_gift_card_redemptions),
      giftCardId: opt(query.gift_card_id),
      giftCardLast4: opt(query.gift_card_last4),
    },
    search: given(query.search) ? { text: query.search, ids: searchIds(query.search) } : undefined,
  };
}

/**
 * The list name the cursor is bound to: every filter given, in a canonical form (keys sorted, "match
 * any" arrays sorted, instants as UTC ISO strings), so a cursor replays only under the same filters.
 */
export function listName(query: Query): string {
  const canonical = (key: string, value: unknown) =>
    Array.isArray(value)
      ? value.map(String).sort()
      : /_at_(gte|lte)$/.test(key)
        ? new Date(String(value)).toISOString()
        : value;
  const entries = Object.entries(query)
    .filter(([key, value]) => key !== 'cursor' && key !== 'limit' && given(value))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => [key, canonical(key, value)]);
  return `transactions:${JSON.stringify(entries)}`;
}

/** `GET /transactions`: newest update first, keyset on (updated_at, id). */
export async function listTransactions(ctx: RequestContext, query: Query): Promise<ListEnvelope<TransactionSummary>> {
  const filter = toFilter(query);
  const reveal = canReadPersonalData(ctx);
  const page = await listPage(
    ctx,
    listName(query),
    query,
    (position, limit) => repo.listTransactions(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    (row) => row,
    (row) => [row.updated_at, row.id],
  );
  const items = page.items.map((row) => toTransactionSummary(row, reveal));
  return { ...page, items: await withGiftCards(ctx.deps.db, ctx, page.items, items) };
}
