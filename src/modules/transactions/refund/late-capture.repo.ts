import type { AttemptRow } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';

/**
 * The authorize attempts of one transaction on one payment service that ended without money
 * (failed or declined: an approval that timed out, a payment rejected), newest first (index
 * `transaction_attempts_txn_idx`): what a provider's late report of a paid payment is matched with.
 */
export async function listUnpaidAuthorizations(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  paymentServiceId: string,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('operation', '=', 'authorize')
    .where('payment_service_id', '=', paymentServiceId)
    .where('status', 'in', ['failed', 'declined'])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}
