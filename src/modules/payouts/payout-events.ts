import type { Deps } from '../../context.ts';
import type { PayoutRow } from '../../db/schema-payouts.ts';
import type { Tx } from '../../db/transaction.ts';
import { emitEvent } from '../events/events.service.ts';
import { toPayoutResource } from './payout.resource.ts';

/**
 * `payout.<status>` (docs/webhooks.md): the status the merchant is first told, then each change,
 * written in the transaction of the change (outbox). The snapshot is masked as for a caller
 * without buyers.billing-details.read.
 */
export async function emitPayout(tx: Tx, deps: Deps, row: PayoutRow): Promise<void> {
  await emitEvent(tx, deps, {
    merchantAccountId: row.merchant_account_id,
    kind: `payout.${row.status}`,
    resourceType: 'payout',
    resourceId: row.id,
    payload: toPayoutResource(row, false),
  });
}

/** The payout as the audit log names it. */
export const auditedPayout = (row: Pick<PayoutRow, 'id' | 'currency' | 'amount'>) => ({
  type: 'payout',
  id: row.id,
  name: `${row.currency} ${row.amount}`,
});
