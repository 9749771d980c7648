import { sql } from 'kysely';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type {
  NewPaymentLink,
  PaymentLinkPatch,
  PaymentLinkRow,
  PaymentLinkStatus,
} from '../../db/schema-payment-links.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export async function insertPaymentLink(db: Executor, row: NewPaymentLink): Promise<PaymentLinkRow> {
  return db.insertInto('payment_links').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPaymentLink(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentLinkRow | undefined> {
  let query = db
    .selectFrom('payment_links')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updatePaymentLink(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: PaymentLinkPatch,
  now = new Date(),
): Promise<PaymentLinkRow> {
  return db
    .updateTable('payment_links')
    .set({ ...patch, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Links that may have to change without anyone asking, across merchant accounts (the partial index
 * of 0026): active or processing ones past their expiry, and processing ones older than `staleBefore`.
 */
export async function listDueLinks(
  db: Executor,
  now: Date,
  staleBefore: Date,
  limit: number,
): Promise<Array<Pick<PaymentLinkRow, 'merchant_account_id' | 'id'>>> {
  return db
    .selectFrom('payment_links')
    .select(['merchant_account_id', 'id'])
    .where('status', 'in', ['active', 'processing'])
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb.and([eb('status', '=', 'processing'), eb('processing_since', '<=', staleBefore)]),
      ]),
    )
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}

export interface PaymentLinkFilter {
  createdAt: { gte?: Date; lte?: Date };
  updatedAt: { gte?: Date; lte?: Date };
  amount: { eq?: number; gte?: number; lte?: number };
  currencies?: string[];
  statuses?: PaymentLinkStatus[];
  buyerSearch?: string[];
}

const buyerName = sql<string>`lower(buyer->>'display_name')`;
const buyerExternal = sql<string>`(buyer->>'external_identifier')`;
const buyerEmail = sql<string>`lower(buyer->'billing_details'->>'email_address')`;
// lower() runs in SQL on both sides so that case folds the same way, whatever the locale.
const lowered = (values: string[]) => values.map((v) => sql<string>`lower(${v})`);

/** The filtered list, last updated first, keyset on (updated_at, id); each filter has an index of 0026. */
export async function listPaymentLinks(
  db: Executor,
  merchantAccountId: string,
  f: PaymentLinkFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<PaymentLinkRow>> {
  let query = db.selectFrom('payment_links').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (f.createdAt.gte) query = query.where('created_at', '>=', f.createdAt.gte);
  if (f.createdAt.lte) query = query.where('created_at', '<=', f.createdAt.lte);
  if (f.updatedAt.gte) query = query.where('updated_at', '>=', f.updatedAt.gte);
  if (f.updatedAt.lte) query = query.where('updated_at', '<=', f.updatedAt.lte);
  if (f.amount.eq !== undefined) query = query.where('amount', '=', f.amount.eq);
  if (f.amount.gte !== undefined) query = query.where('amount', '>=', f.amount.gte);
  if (f.amount.lte !== undefined) query = query.where('amount', '<=', f.amount.lte);
  if (f.currencies) query = query.where('currency', 'in', f.currencies);
  if (f.statuses) query = query.where('status', 'in', f.statuses);
  const terms = f.buyerSearch;
  if (terms && terms.length > 0) {
    query = query.where((eb) =>
      eb.or([
        eb(buyerName, 'in', lowered(terms)),
        eb(buyerExternal, 'in', terms),
        eb(buyerEmail, 'in', lowered(terms)),
      ]),
    );
  }
  return keysetPage(db, query, { columns: ['updated_at', 'id'], limit, position });
}
