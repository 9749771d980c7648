import type { Deps, RequestContext } from '../../context.ts';
import type { PaymentLinkPatch, PaymentLinkRow, PaymentLinkStatus } from '../../db/schema-payment-links.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { recordAudit, recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { latestTransactionOfPaymentLink } from '../transactions/transactions.service.ts';
import { auditedPaymentLink, emitPaymentLink } from './payment-link-events.ts';
import { afterPayment, isDue, paymentOutcome } from './payment-link-status.ts';
import * as repo from './payment-links.repo.ts';

/**
 * Keeps a link's status in step with the clock and with its payment (docs/payment-links.md,
 * "Lifecycle"). Called on every read (API and hosted page), after each payment through the page,
 * and by the expire-payment-links job; each change is one database transaction under the link's
 * row lock with its `payment-link.updated` event and audit entry.
 */

/** A processing link whose payment never recorded a transaction (the paying process died first) reopens after this long. */
export const STALE_PROCESSING_MS = 5 * 60 * 1000;

/** Writes the audit entry of a change: the request's credential, or the platform's job. */
export type Audit = (tx: Tx, row: PaymentLinkRow) => Promise<void>;
export const requestAudit =
  (ctx: RequestContext): Audit =>
  (tx, row) =>
    recordAudit(tx, ctx, 'updated', auditedPaymentLink(row), row.merchant_account_id);
export const systemAudit =
  (jobName: string, jobId: string): Audit =>
  (tx, row) =>
    recordSystemAudit(
      tx,
      row.merchant_account_id,
      { name: 'System (payment link expiry)', jobName, jobId },
      'updated',
      auditedPaymentLink(row),
    );

/** Moves the locked row to `status` with its event and audit entry. */
export async function changeStatus(
  tx: Tx,
  deps: Deps,
  row: PaymentLinkRow,
  status: PaymentLinkStatus,
  audit: Audit,
  patch: PaymentLinkPatch = {},
  now = new Date(),
): Promise<PaymentLinkRow> {
  const updated = await repo.updatePaymentLink(
    tx,
    row.merchant_account_id,
    row.id,
    { ...patch, status, processing_since: status === 'processing' ? now : null },
    now,
  );
  await emitPaymentLink(tx, deps, updated, 'updated');
  await audit(tx, updated);
  return updated;
}

/** The status the locked row should have now, and the payment it follows; null when nothing changes. */
async function dueChange(
  tx: Tx,
  row: PaymentLinkRow,
  now: Date,
): Promise<{ status: PaymentLinkStatus; transactionId: string | null } | null> {
  if (isDue(row, now)) return { status: 'expired', transactionId: row.transaction_id };
  if (row.status !== 'processing') return null;
  const payment = await latestTransactionOfPaymentLink(tx, row.merchant_account_id, row.id);
  if (payment) {
    const outcome = paymentOutcome(payment.status);
    return outcome === 'pending'
      ? null
      : { status: afterPayment(outcome, row.expires_at, now), transactionId: payment.id };
  }
  const stale = row.processing_since !== null && row.processing_since.getTime() <= now.getTime() - STALE_PROCESSING_MS;
  return stale ? { status: afterPayment('unpaid', row.expires_at, now), transactionId: null } : null;
}

/** Brings the locked row up to date; returns it (changed or not). */
export async function settleLocked(
  tx: Tx,
  deps: Deps,
  row: PaymentLinkRow,
  audit: Audit,
  now = new Date(),
): Promise<PaymentLinkRow> {
  const change = await dueChange(tx, row, now);
  if (!change) return row;
  return changeStatus(tx, deps, row, change.status, audit, { transaction_id: change.transactionId }, now);
}

const mayChange = (row: PaymentLinkRow, now: Date) => isDue(row, now) || row.status === 'processing';

/** The link, brought up to date; undefined when it does not exist. Reads without a lock when nothing can change. */
export async function refreshLink(
  deps: Deps,
  merchantAccountId: string,
  id: string,
  audit: Audit,
): Promise<PaymentLinkRow | undefined> {
  const now = new Date();
  const row = await repo.findPaymentLink(deps.db, merchantAccountId, id);
  if (!row || !mayChange(row, now)) return row;
  return withTransaction(deps.db, async (tx) => {
    const locked = (await repo.findPaymentLink(tx, merchantAccountId, id, { forUpdate: true }))!;
    return settleLocked(tx, deps, locked, audit, now);
  });
}

/** The job: every link past its expiry or stuck processing, brought up to date. Returns how many changed. */
export async function settleDueLinks(deps: Deps, now: Date, audit: Audit): Promise<number> {
  let changed = 0;
  for (const due of await repo.listDueLinks(deps.db, now, new Date(now.getTime() - STALE_PROCESSING_MS), 200)) {
    const before = await repo.findPaymentLink(deps.db, due.merchant_account_id, due.id);
    const after = await refreshLink(deps, due.merchant_account_id, due.id, audit);
    if (before && after && before.status !== after.status) changed++;
  }
  return changed;
}

/** A payment through the page failed before its transaction was recorded: the link reopens (or expires) at once. */
export async function reopenUnpaid(deps: Deps, merchantAccountId: string, id: string, audit: Audit): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const row = await repo.findPaymentLink(tx, merchantAccountId, id, { forUpdate: true });
    if (!row || row.status !== 'processing') return;
    const now = new Date();
    if (await latestTransactionOfPaymentLink(tx, merchantAccountId, id)) await settleLocked(tx, deps, row, audit, now);
    else await changeStatus(tx, deps, row, afterPayment('unpaid', row.expires_at, now), audit, {}, now);
  });
}
