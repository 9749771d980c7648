import type { SyncOutcome } from '../../../connectors/connector.ts';
import type { Deps } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import type { Tx } from '../../../db/transaction.ts';
import { storeProviderAccount } from '../../payment-methods/provider-accounts.service.ts';
import * as repo from '../transactions.repo.ts';

const ACCEPTED: readonly string[] = ['authorization_succeeded', 'capture_succeeded', 'capture_pending'];

/**
 * `store: true` of a payment approved on the provider's page (PayPal): once the approved payment
 * is authorized, the buyer's account at the provider that the status answer names
 * (`SyncOutcome.providerAccount`) is stored as a payment method of the payment's method, and the
 * transaction points at it. A connector that names no account stores nothing. Returns the
 * transaction as it leaves it.
 */
export async function storeOnApproval(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  answer: SyncOutcome,
): Promise<TransactionRow> {
  const account = answer.providerAccount;
  if (!row.store_on_approval || !account || !row.method || row.payment_method_id || !ACCEPTED.includes(row.status))
    return row;
  const stored = await storeProviderAccount(tx, deps, row.merchant_account_id, {
    method: row.method,
    id: account.id,
    email: account.email,
    buyerId: row.buyer_id,
  });
  return repo.updateTransaction(tx, row.merchant_account_id, row.id, {
    payment_method_id: stored.id,
    payment_method: JSON.stringify({ ...(row.payment_method ?? {}), id: stored.id, label: stored.label }),
  });
}
