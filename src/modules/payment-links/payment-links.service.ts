import { randomUUID } from 'node:crypto';
import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { NewPaymentLink, PaymentLinkRow } from '../../db/schema-payment-links.ts';
import type { Tx } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { findBuyerRow } from '../buyers/buyer-snapshots.service.ts';
import { canReadPersonalData } from '../buyers/buyers.service.ts';
import { auditedPaymentLink, emitPaymentLink } from './payment-link-events.ts';
import { changeStatus, refreshLink, requestAudit, settleLocked } from './payment-link-lifecycle.ts';
import { toPaymentLinkResource } from './payment-link.resource.ts';
import { checkCreateBody, DEFAULT_LIFETIME_MS } from './payment-link-validation.ts';
import type { CreatePaymentLinkBody, ListPaymentLinksQuery, PaymentLink } from './payment-links.schemas.ts';
import * as repo from './payment-links.repo.ts';

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** The guest buyer as given (its shipping details apart), or the stored buyer's summary. */
async function buyerColumns(
  tx: Tx,
  ctx: RequestContext,
  body: CreatePaymentLinkBody,
): Promise<Pick<NewPaymentLink, 'buyer' | 'buyer_id' | 'shipping_details'>> {
  if (body.buyer_id) {
    const row = await findBuyerRow(tx, ctx, { id: body.buyer_id });
    const snapshot = {
      id: row.id,
      display_name: row.display_name,
      external_identifier: row.external_identifier,
      account_number: row.account_number,
      billing_details: row.billing_details,
    };
    return { buyer: json(snapshot), buyer_id: row.id, shipping_details: null };
  }
  if (!body.buyer) return { buyer: null, buyer_id: null, shipping_details: null };
  const { shipping_details: shipping, ...guest } = body.buyer;
  return {
    buyer: json({ id: null, ...guest }),
    buyer_id: null,
    shipping_details: shipping ? json({ id: null, buyer_id: null, ...shipping }) : null,
  };
}

function linkColumns(
  body: CreatePaymentLinkBody,
  now: Date,
): Omit<NewPaymentLink, 'merchant_account_id' | 'id' | 'buyer' | 'buyer_id' | 'shipping_details'> {
  return {
    status: 'active',
    amount: body.amount,
    currency: body.currency,
    country: body.country,
    intent: body.intent ?? 'authorize',
    payment_source: body.payment_source ?? 'ecommerce',
    store: body.store ?? false,
    expires_at: body.expires_at ? new Date(body.expires_at) : new Date(now.getTime() + DEFAULT_LIFETIME_MS),
    locale: body.locale ?? null,
    merchant_name: body.merchant_name ?? null,
    merchant_url: body.merchant_url ?? null,
    merchant_banner_url: body.merchant_banner_url ?? null,
    merchant_color: body.merchant_color ?? null,
    merchant_message: body.merchant_message ?? null,
    merchant_terms_and_conditions_url: body.merchant_terms_and_conditions_url ?? null,
    merchant_favicon_url: body.merchant_favicon_url ?? null,
    external_identifier: body.external_identifier ?? null,
    statement_descriptor: json(body.statement_descriptor),
    return_url: body.return_url ?? null,
    cart_items: json(body.cart_items),
    metadata: json(body.metadata),
    installment_count: body.installment_count ?? null,
    connection_options: json(body.connection_options),
  };
}

/** `POST /payment-links`: the link (a random v4 id, the secret of its page), its event and audit entry in one transaction. */
export async function createPaymentLink(ctx: RequestContext, body: CreatePaymentLinkBody): Promise<PaymentLink> {
  const now = new Date();
  checkCreateBody(ctx.deps.config, body, now);
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertPaymentLink(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: randomUUID(),
      ...linkColumns(body, now),
      ...(await buyerColumns(tx, ctx, body)),
    });
    await recordAudit(tx, ctx, 'created', auditedPaymentLink(row));
    await emitPaymentLink(tx, ctx.deps, row, 'created');
    return toPaymentLinkResource(ctx.deps, row, canReadPersonalData(ctx));
  });
}

/** `GET /payment-links/{id}`: expired on read once its time has passed; a finished payment settles it. */
export async function getPaymentLink(ctx: RequestContext, id: string): Promise<PaymentLink> {
  const row = await refreshLink(ctx.deps, ctx.merchantAccountId, id, requestAudit(ctx));
  if (!row) throw notFound('payment link', id);
  return toPaymentLinkResource(ctx.deps, row, canReadPersonalData(ctx));
}

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;
const date = (value: string | null | undefined) => (given(value) ? new Date(value) : undefined);

export function toFilter(query: ListPaymentLinksQuery): repo.PaymentLinkFilter {
  return {
    createdAt: { gte: date(query.created_at_gte), lte: date(query.created_at_lte) },
    updatedAt: { gte: date(query.updated_at_gte), lte: date(query.updated_at_lte) },
    amount: {
      eq: query.amount_eq ?? undefined,
      gte: query.amount_gte ?? undefined,
      lte: query.amount_lte ?? undefined,
    },
    ...(given(query.currency) ? { currencies: query.currency } : {}),
    ...(given(query.status) ? { statuses: query.status } : {}),
    ...(given(query.buyer_search) ? { buyerSearch: query.buyer_search } : {}),
  };
}

/** The list name the cursor is bound to: every filter given, canonical (arrays sorted, instants in UTC). */
export function listName(query: ListPaymentLinksQuery): string {
  const entries = Object.entries(query)
    .filter(([key, value]) => key !== 'cursor' && key !== 'limit' && given(value))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => [
      key,
      Array.isArray(value)
        ? value.map(String).sort()
        : /_at_(gte|lte)$/.test(key)
          ? new Date(String(value)).toISOString()
          : value,
    ]);
  return `payment-links:${JSON.stringify(entries)}`;
}

/** A link past its expiry shows as expired in lists too; the job or the next read records it. */
const asRead = (row: PaymentLinkRow, now: Date): PaymentLinkRow =>
  row.status === 'active' && row.expires_at <= now ? { ...row, status: 'expired' } : row;

/** `GET /payment-links`: last updated first, keyset on (updated_at, id). */
export async function listPaymentLinks(
  ctx: RequestContext,
  query: ListPaymentLinksQuery,
): Promise<ListEnvelope<PaymentLink>> {
  const reveal = canReadPersonalData(ctx);
  const now = new Date();
  return listPage(
    ctx,
    listName(query),
    query,
    (position, limit) => repo.listPaymentLinks(ctx.deps.db, ctx.merchantAccountId, toFilter(query), position, limit),
    (row) => toPaymentLinkResource(ctx.deps, asRead(row, now), reveal),
    (row) => [row.updated_at, row.id],
  );
}

/**
 * `POST /payment-links/{id}/expire`: an active link expires (204); an expired one stays so (204).
 * A paid link, or one whose payment is still in flight, cannot be expired (400).
 */
export async function expirePaymentLink(ctx: RequestContext, id: string): Promise<void> {
  const audit = requestAudit(ctx);
  // A finished payment is recorded first, in its own transaction: the refusal below must not roll it back.
  await refreshLink(ctx.deps, ctx.merchantAccountId, id, audit);
  await withRequestTransaction(ctx, async (tx) => {
    const found = await repo.findPaymentLink(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!found) throw notFound('payment link', id);
    const row = await settleLocked(tx, ctx.deps, found, audit);
    if (row.status === 'completed')
      throw new AppError('bad_request', 'The payment link was paid already; a completed link cannot be expired');
    if (row.status === 'processing')
      throw new AppError(
        'bad_request',
        'A payment through this payment link is in progress; expire the link once it has ended',
      );
    if (row.status === 'active') await changeStatus(tx, ctx.deps, row, 'expired', audit);
    return null;
  });
}
