import type { Deps } from '../../context.ts';
import type { PaymentLinkRow } from '../../db/schema-payment-links.ts';
import type { Tx } from '../../db/transaction.ts';
import { emitEvent } from '../events/events.service.ts';
import { toPaymentLinkResource } from './payment-link.resource.ts';

/**
 * `payment-link.created` and `payment-link.updated` (docs/webhooks.md): written in the transaction
 * of the change (outbox). The snapshot is masked as for a caller without buyers.billing-details.read.
 */
export async function emitPaymentLink(
  tx: Tx,
  deps: Deps,
  row: PaymentLinkRow,
  kind: 'created' | 'updated',
): Promise<void> {
  await emitEvent(tx, deps, {
    merchantAccountId: row.merchant_account_id,
    kind: `payment-link.${kind}`,
    resourceType: 'payment-link',
    resourceId: row.id,
    payload: toPaymentLinkResource(deps, row, false),
  });
}

/** The payment link as the audit log names it. */
export const auditedPaymentLink = (row: Pick<PaymentLinkRow, 'id' | 'currency' | 'amount'>) => ({
  type: 'payment-link',
  id: row.id,
  name: `${row.currency} ${row.amount}`,
});
