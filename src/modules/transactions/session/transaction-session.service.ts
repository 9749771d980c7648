import { apiError, callConnector } from '../../../connectors/call.ts';
import type { IntegrationClient } from '../../../connectors/connector.ts';
import type { Deps, RequestContext, TransactionSessionCredential } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { fieldRefusal, notFound } from '../../../errors/app-error.ts';
import { connectorOfTransaction } from '../connector-call.ts';
import { sessionConnector, sessionOpen } from '../session-open.ts';
import * as repo from '../transactions.repo.ts';
import type { TransactionSession, UpdateTransactionSessionBody } from './transaction-session.schema.ts';

/**
 * `Deps.resolveTransactionSession`: the transaction a session token opens, or null (401). The MAC
 * is checked first, so a forged token costs no query; then the token must still be the one the
 * transaction would carry now: its session open, its deadline the token's expiry (a new approval
 * window, or a transaction no longer waiting for its buyer, ends every earlier token).
 */
export async function resolveTransactionSession(
  deps: Deps,
  transactionId: string,
  token: string,
): Promise<TransactionSessionCredential | null> {
  const claim = deps.sessionTokens.read(token, transactionId);
  const now = new Date();
  if (!claim || claim.expiresAt.getTime() <= now.getTime()) return null;
  const row = await repo.findTransaction(deps.db, claim.merchantAccountId, transactionId);
  if (!row || !sessionOpen(deps, row, now) || row.approval_expires_at.getTime() !== claim.expiresAt.getTime())
    return null;
  return { transactionId, merchantAccountId: claim.merchantAccountId, expiresAt: claim.expiresAt };
}

/** The payment method's redirect_url with the transaction's id, else the page the buyer is sent to. */
function completionUrl(row: TransactionRow & { approval_url: string }): string {
  const back = (row.extra as { redirect_url?: string }).redirect_url;
  if (!back || !/^https?:\/\//i.test(back)) return row.approval_url;
  return `${back}${back.includes('?') ? '&' : '?'}transaction_id=${encodeURIComponent(row.id)}`;
}

/**
 * `POST /transactions/{id}/session`: the connector's client session of a transaction that waits for
 * its buyer, updated with `payload` where the connector allows it (400 naming `/payload` where it
 * does not). Authenticated by the session token (http/auth.ts); the session may have ended since
 * (404). The connector is called outside any database transaction.
 */
export async function updateTransactionSession(
  ctx: RequestContext,
  transactionId: string,
  body: UpdateTransactionSessionBody,
): Promise<TransactionSession> {
  const row = await repo.findTransaction(ctx.deps.db, ctx.merchantAccountId, transactionId);
  if (!row || !sessionOpen(ctx.deps, row)) throw notFound('transaction session', transactionId);
  const { credentials, options } = await connectorOfTransaction(ctx.deps.db, ctx.deps, row);
  const connector = sessionConnector(ctx.deps, row)!;
  const requested = (row.extra as { integration_client?: IntegrationClient }).integration_client ?? null;
  const { value: outcome } = await callConnector(
    () =>
      connector.clientSession!({
        idempotencyKey: row.id,
        credentials,
        options,
        providerTransactionId: row.payment_service_transaction_id,
        reference: row.id,
        approvalUrl: row.approval_url,
        approvalExpiresAt: row.approval_expires_at,
        integrationClient: requested,
        payload: body.payload ?? null,
      }),
    apiError,
  );
  if (outcome.status === 'update_refused') {
    const message = outcome.message ?? "This payment service's session takes no such update";
    throw fieldRefusal('body', '/payload', message, 'session_update_not_supported');
  }
  return {
    session_data: outcome.sessionData,
    default_completion_url: completionUrl(row),
    integration_client: outcome.integrationClient,
  };
}
