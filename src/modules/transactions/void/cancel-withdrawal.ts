import type { ConnectorCapabilities } from '../../../connectors/connector.ts';

/**
 * Why a transaction awaiting its buyer cannot be canceled here, or null. A cancel records the
 * transaction as given up without asking the provider (void-transaction.service.ts); a buyer who
 * approves later is then undone at the provider by a void of the late authorization
 * (late-void.service.ts). A sale method whose provider can neither withdraw the pending payment
 * (`cancel`) nor void what it becomes (`void`) would keep the buyer's money for a transaction
 * recorded as canceled: a PIX code stays payable until it expires, an iDEAL payment is captured
 * when the buyer approves at the bank. Such a payment ends by its provider's outcome or its
 * approval deadline, and is refunded if paid (docs/routing.md, "Failover of redirect and
 * asynchronous methods"; decision 0125).
 */
export function withdrawalRefusal(
  row: { status: string; method: string | null },
  capabilities: Pick<ConnectorCapabilities, 'cancel' | 'void'> | null,
): string | null {
  if (row.status !== 'buyer_approval_pending' || !capabilities) return null;
  if (capabilities.cancel || capabilities.void) return null;
  return `The buyer can still pay this ${row.method ?? 'payment'} at the payment service, which cannot withdraw it: wait for its outcome or its approval_expires_at, and refund it if it is paid`;
}
