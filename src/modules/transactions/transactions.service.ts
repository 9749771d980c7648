import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { TransactionStatus } from '../../db/schema-transactions.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import type { UpdateTransactionBody } from './create-transaction.schema.ts';
import { toCaptureResource } from './capture.schema.ts';
import { toRefundResource } from './refund.schema.ts';
import { toEventResource, toRefundSettlementResource, toSettlementResource } from './transaction-reads.schema.ts';
import type { Transaction } from './transaction.schema.ts';
import * as repo from './transactions.repo.ts';
import { transactionResource } from './transaction-view.ts';

async function requireTransaction(ctx: RequestContext, id: string) {
  const row = await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('transaction', id);
  return row;
}

/** The newest transaction made through a payment link, or null: how the payment links module follows its payments. */
export async function latestTransactionOfPaymentLink(
  db: Executor,
  merchantAccountId: string,
  paymentLinkId: string,
): Promise<{ id: string; status: TransactionStatus; errorCode: string | null; approvalUrl: string | null } | null> {
  const row = await repo.findLatestOfPaymentLink(db, merchantAccountId, paymentLinkId);
  return row ? { id: row.id, status: row.status, errorCode: row.error_code, approvalUrl: row.approval_url } : null;
}

/** For the blocklist: the keyed fingerprint of the card a transaction was paid with, its BIN and last 4; null: no such transaction. */
export async function cardOfTransaction(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<{ fingerprint: string | null; bin: string | null; last4: string | null } | null> {
  const row = await repo.findTransaction(db, merchantAccountId, id);
  if (!row) return null;
  const card = (row.payment_method ?? {}) as { bin?: string | null; label?: string | null };
  return { fingerprint: row.card_fingerprint, bin: card.bin ?? null, last4: card.label ?? null };
}

export async function getTransaction(ctx: RequestContext, id: string): Promise<Transaction> {
  return transactionResource(ctx.deps.db, ctx, await requireTransaction(ctx, id));
}

/** `PUT /transactions/{id}`: external identifier, metadata (replaced whole when given), connection options. */
export async function updateTransaction(
  ctx: RequestContext,
  id: string,
  body: UpdateTransactionBody,
): Promise<Transaction> {
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.findTransaction(tx, ctx.merchantAccountId, id, { forUpdate: true });
    if (!row) throw notFound('transaction', id);
    const patch: Parameters<typeof repo.updateTransaction>[3] = {};
    if (body.external_identifier !== undefined) patch.external_identifier = body.external_identifier;
    if (body.metadata !== undefined) patch.metadata = body.metadata === null ? null : JSON.stringify(body.metadata);
    if (body.connection_options !== undefined)
      patch.connection_options = body.connection_options === null ? null : JSON.stringify(body.connection_options);
    const updated =
      Object.keys(patch).length > 0 ? await repo.updateTransaction(tx, ctx.merchantAccountId, id, patch) : row;
    await recordAudit(tx, ctx, 'updated', { type: 'transaction', id, name: `${row.currency} ${row.amount}` });
    return transactionResource(tx, ctx, updated);
  });
}

export async function listTransactionActions(ctx: RequestContext, id: string) {
  const row = await requireTransaction(ctx, id);
  return { items: row.actions.map((action) => ({ type: 'action' as const, ...action })) };
}

export async function listTransactionEvents(
  ctx: RequestContext,
  id: string,
  query: { cursor?: string | null; limit: number },
) {
  await requireTransaction(ctx, id);
  return listPage(
    ctx,
    `transaction-events:${id}`,
    query,
    (position, limit) => repo.listEvents(ctx.deps.db, ctx.merchantAccountId, id, position, limit),
    toEventResource,
    (row) => [row.created_at, row.id],
  );
}

export async function listTransactionRefunds(ctx: RequestContext, id: string) {
  const row = await requireTransaction(ctx, id);
  const refunds = await repo.listRefunds(ctx.deps.db, ctx.merchantAccountId, id);
  return {
    items: refunds.map((r) => toRefundResource(r, row)),
    limit: Math.max(refunds.length, 1),
    next_cursor: null,
    previous_cursor: null,
  };
}

export async function getTransactionRefund(ctx: RequestContext, id: string, refundId: string) {
  const row = await requireTransaction(ctx, id);
  const refund = await repo.findRefund(ctx.deps.db, ctx.merchantAccountId, refundId, id);
  if (!refund) throw notFound('refund', refundId);
  return toRefundResource(refund, row);
}

export async function getRefund(ctx: RequestContext, refundId: string) {
  const refund = await repo.findRefund(ctx.deps.db, ctx.merchantAccountId, refundId);
  if (!refund) throw notFound('refund', refundId);
  return toRefundResource(
    refund,
    (await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, refund.transaction_id))!,
  );
}

export async function listTransactionSettlements(ctx: RequestContext, id: string) {
  await requireTransaction(ctx, id);
  return { items: (await repo.listSettlements(ctx.deps.db, ctx.merchantAccountId, id)).map(toSettlementResource) };
}

export async function getTransactionSettlement(ctx: RequestContext, id: string, settlementId: string) {
  await requireTransaction(ctx, id);
  const row = await repo.findSettlement(ctx.deps.db, ctx.merchantAccountId, id, settlementId);
  if (!row) throw notFound('settlement', settlementId);
  return toSettlementResource(row);
}

/** Capture records: the transaction's capture attempts (an authorize-and-capture transaction has none: its authorization captured). */
export async function listTransactionCaptures(ctx: RequestContext, id: string) {
  const row = await requireTransaction(ctx, id);
  const captures = await repo.listCaptures(ctx.deps.db, ctx.merchantAccountId, id);
  return {
    items: captures.map((attempt) => toCaptureResource(attempt, row)),
    limit: Math.max(captures.length, 1),
    next_cursor: null,
    previous_cursor: null,
  };
}

export async function getTransactionCapture(ctx: RequestContext, id: string, captureId: string) {
  const row = await requireTransaction(ctx, id);
  const attempt = await repo.findCapture(ctx.deps.db, ctx.merchantAccountId, id, captureId);
  if (!attempt) throw notFound('capture', captureId);
  return toCaptureResource(attempt, row);
}

export async function listTransactionRefundSettlements(ctx: RequestContext, id: string) {
  await requireTransaction(ctx, id);
  return {
    items: (await repo.listRefundSettlements(ctx.deps.db, ctx.merchantAccountId, id)).map(toRefundSettlementResource),
  };
}

export async function getTransactionRefundSettlement(ctx: RequestContext, id: string, settlementId: string) {
  await requireTransaction(ctx, id);
  const row = await repo.findRefundSettlement(ctx.deps.db, ctx.merchantAccountId, id, settlementId);
  if (!row) throw notFound('refund settlement', settlementId);
  return toRefundSettlementResource(row);
}
