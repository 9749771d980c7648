import type { Deps } from '../../../context.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import { callConnector, connectorOfTransaction, paymentHint } from '../connector-call.ts';
import * as repo from '../transactions.repo.ts';
import { listUnpaidAuthorizations } from './late-capture.repo.ts';
import { lateCaptureOf, scheduleLateRefund } from './late-refund.service.ts';
import { authorizationIntent } from '../review/review-hold.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * A sale whose approval deadline passed (`buyer_approval_timeout`) at a provider that cannot void
 * it: when the merchant syncs the transaction, or its buyer comes back from the provider's page
 * late (`returnParams`, which the connector completes the payment with), the provider is asked
 * about the payment once more; one it captured after all is refunded in full
 * (late-refund.service.ts). True when a refund was scheduled.
 */
export async function checkLateSale(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  returnParams: Record<string, string> | null,
  log: Log,
): Promise<boolean> {
  const row = await repo.findTransaction(deps.db, merchantAccountId, transactionId);
  if (row?.error_code !== 'buyer_approval_timeout' || row.captured_amount > 0 || !row.payment_service_id) return false;
  const bound = await connectorOfTransaction(deps.db, deps, row);
  const sync = bound.connector.sync?.bind(bound.connector);
  if (bound.connector.definition.capabilities.void || !sync) return false;
  const serviceId = row.payment_service_id;
  const [authorization] = await listUnpaidAuthorizations(deps.db, merchantAccountId, row.id, serviceId);
  if (!authorization) return false;
  const result = await callConnector(
    () =>
      sync({
        idempotencyKey: authorization.id,
        credentials: bound.credentials,
        options: bound.options,
        operation: 'authorize',
        providerTransactionId: authorization.provider_reference ?? row.payment_service_transaction_id,
        paymentProviderTransactionId: row.payment_service_transaction_id,
        reference: uuidToBase62(row.id),
        amount: authorization.amount,
        currency: row.currency,
        payment: paymentHint(row),
        intent: authorizationIntent(row),
        buyerApproved: null,
        returnParams,
      }),
    log,
  );
  if (!result.ok || result.value.status !== 'captured') return false;
  const paymentId = result.value.providerTransactionId ?? authorization.provider_reference;
  if (!paymentId) return false;
  return withTransaction(deps.db, async (tx) => {
    const locked = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    const late = locked && (await lateCaptureOf(tx, locked, serviceId, paymentId));
    if (!locked || !late) return false;
    await scheduleLateRefund(tx, deps, log, locked, late, paymentId, 'sync');
    return true;
  });
}
