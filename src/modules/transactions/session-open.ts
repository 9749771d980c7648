import type { PaymentConnector } from '../../connectors/connector.ts';
import type { Deps } from '../../context.ts';
import type { TransactionRow } from '../../db/schema-transactions.ts';

/**
 * When a transaction has an open client session, and its `session_token` then (the tokens
 * themselves: session-token.ts, which `Deps` holds, so it cannot take `Deps` itself).
 */

/** The connector of the transaction's payment service, when it has client sessions. */
export function sessionConnector(deps: Deps, row: TransactionRow): PaymentConnector | null {
  const definition = (row.payment_service as { payment_service_definition_id?: string } | null)
    ?.payment_service_definition_id;
  const connector = definition ? deps.connectors.find(definition) : null;
  return connector?.clientSession ? connector : null;
}

/**
 * Whether the transaction has an open client session: it waits for its buyer at an approval page
 * (a redirect, a 3DS challenge) until its approval deadline, through a connector with client
 * sessions. Only then does it carry a `session_token`, valid until that deadline.
 */
export function sessionOpen(
  deps: Deps,
  row: TransactionRow,
  now = new Date(),
): row is TransactionRow & { approval_url: string; approval_expires_at: Date } {
  return (
    row.status === 'buyer_approval_pending' &&
    row.approval_url !== null &&
    row.approval_expires_at !== null &&
    row.approval_expires_at.getTime() > now.getTime() &&
    sessionConnector(deps, row) !== null
  );
}

/** The transaction's `session_token`: issued while its session is open, null otherwise. */
export function sessionTokenOf(deps: Deps, row: TransactionRow, now = new Date()): string | null {
  return sessionOpen(deps, row, now)
    ? deps.sessionTokens.issue(row.merchant_account_id, row.id, row.approval_expires_at)
    : null;
}
