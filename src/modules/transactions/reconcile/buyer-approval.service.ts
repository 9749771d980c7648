import type { Deps } from '../../../context.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { AppError, notFound } from '../../../errors/app-error.ts';
import { normalizedIban } from '../../../lib/iban.ts';
import { checkPendingAttempt } from './reconcile.service.ts';
import { checkLateSale } from '../refund/late-sale-check.ts';
import * as repo from '../transactions.repo.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

export interface ApprovalPage {
  transactionId: string;
  amount: number;
  currency: string;
  method: string;
  status: string;
  /** Where the buyer goes back to (the payment method's redirect_url). */
  redirectUrl: string | null;
  open: boolean;
  /** A PIX payment's copy-and-paste code, shown on the page standing in for the buyer's bank app. */
  pixCode: string | null;
}

/** What the sandbox approval page shows for one authorization attempt (404 for an unknown one). */
export async function approvalPage(deps: Deps, merchantAccountId: string, attemptId: string): Promise<ApprovalPage> {
  const attempt = await repo.findAttempt(deps.db, merchantAccountId, attemptId);
  const row =
    attempt && attempt.operation === 'authorize'
      ? await repo.findTransaction(deps.db, merchantAccountId, attempt.transaction_id)
      : undefined;
  if (!attempt || !row) throw notFound('approval');
  const extra = row.extra as { redirect_url?: string };
  const identifiers = (row.additional_identifiers ?? {}) as Record<string, string | null>;
  return {
    transactionId: row.id,
    amount: row.amount,
    currency: row.currency,
    method: row.method ?? '',
    status: row.status,
    redirectUrl: extra.redirect_url ?? null,
    open: row.status === 'buyer_approval_pending' && attempt.status === 'pending',
    pixCode: identifiers.pix_qr_code ?? null,
  };
}

/**
 * The buyer's choice on the sandbox approval page: recorded on the attempt (the simulated
 * provider's own record), then the transaction is brought up to date at once through the same
 * status query reconciliation uses. A second choice, or one after the approval expired, is 400.
 * A SEPA mandate is approved with the buyer's IBAN (`details.iban`, checked, not kept: the
 * simulated bank needs nothing more).
 */
export async function recordBuyerApproval(
  deps: Deps,
  merchantAccountId: string,
  attemptId: string,
  approved: boolean,
  details: { iban?: string | undefined } = {},
): Promise<ApprovalPage> {
  await withTransaction(deps.db, async (tx) => {
    const attempt = await repo.findAttempt(tx, merchantAccountId, attemptId, { forUpdate: true });
    if (attempt?.operation !== 'authorize') throw notFound('approval');
    const row = await repo.findTransaction(tx, merchantAccountId, attempt.transaction_id);
    if (
      row?.status !== 'buyer_approval_pending' ||
      attempt.status !== 'pending' ||
      attempt.approval_decision !== null
    ) {
      throw new AppError('bad_request', 'This payment is no longer waiting for approval');
    }
    if (row.approval_expires_at && row.approval_expires_at <= new Date())
      throw new AppError('bad_request', 'The approval of this payment has expired');
    if (approved && row.method === 'sepa' && normalizedIban(details.iban ?? '') === null)
      throw new AppError('bad_request', 'Enter a valid IBAN to approve the SEPA Direct Debit mandate');
    await repo.updateAttempt(tx, merchantAccountId, attemptId, {
      approval_decision: approved ? 'approved' : 'declined',
    });
  });
  await checkPendingAttempt(deps, merchantAccountId, attemptId);
  return approvalPage(deps, merchantAccountId, attemptId);
}

/**
 * The buyer is back from a real provider's own page (3DS): the parameters the provider appended
 * (Adyen's `redirectResult`) go to the connector's status query, which completes the payment.
 * An unknown attempt is 404; one no longer waiting for the buyer is answered with its current
 * state (a buyer who reloads the page changes nothing), except a sale back after its approval
 * deadline: completed at the provider, it is refunded if it was paid (late-sale-check.ts).
 */
export async function recordProviderReturn(
  deps: Deps,
  merchantAccountId: string,
  attemptId: string,
  params: Record<string, string>,
  log: Log = { warn: () => undefined, info: () => undefined },
): Promise<ApprovalPage> {
  const page = await approvalPage(deps, merchantAccountId, attemptId);
  if (page.open) await checkPendingAttempt(deps, merchantAccountId, attemptId, params);
  // The buyer is sent on whatever the provider says; reconciliation and webhooks stay the record.
  else
    await checkLateSale(deps, merchantAccountId, page.transactionId, params, log).catch((err: unknown) =>
      log.warn({ err, transactionId: page.transactionId }, 'a late return could not be checked with the provider'),
    );
  return approvalPage(deps, merchantAccountId, attemptId);
}
