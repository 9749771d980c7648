import type { InboundWebhookAction } from '../../connectors/connector-webhooks.ts';
import type { PayoutSyncOutcome } from '../../connectors/connector.ts';
import type { Deps } from '../../context.ts';
import type { Tx } from '../../db/transaction.ts';
import { isUuid } from '../../lib/ids.ts';
import type { SystemActor } from '../audit-logs/audit-logs.service.ts';
import { isOpenAttempt } from './payout-status.ts';
import * as repo from './payouts.repo.ts';
import { settle } from './reconcile-payouts.service.ts';

const STATUSES = {
  payout_succeeded: 'succeeded',
  payout_declined: 'declined',
  payout_failed: 'failed',
} as const satisfies Partial<Record<InboundWebhookAction['kind'], PayoutSyncOutcome['status']>>;

export type PayoutActionKind = keyof typeof STATUSES;
export const isPayoutAction = (kind: InboundWebhookAction['kind']): kind is PayoutActionKind =>
  Object.hasOwn(STATUSES, kind);

const actor: SystemActor = { name: 'System (provider webhook)', jobName: 'provider-webhook', jobId: 'inline' };

/** The payout an action is about: by the provider's payout id, else by our attempt id the provider echoed. */
async function payoutOf(
  tx: Tx,
  scope: { merchantAccountId: string; paymentServiceId: string },
  action: InboundWebhookAction,
) {
  const { merchantAccountId: m, paymentServiceId } = scope;
  if (action.providerTransactionId) {
    const found = await repo.findPayoutOfProvider(tx, m, paymentServiceId, action.providerTransactionId);
    if (found) return found;
  }
  const attemptId = action.providerReferenceId;
  if (!attemptId || !isUuid(attemptId)) return null;
  const attempt = await repo.findAttempt(tx, m, attemptId);
  if (attempt?.payment_service_id !== paymentServiceId) return null;
  return (await repo.findPayout(tx, m, attempt.payout_id)) ?? null;
}

/**
 * A provider's webhook about a payout (PayPal's PAYMENT.PAYOUTS-ITEM.*), applied as a status
 * answer through the same state machine as reconciliation: a pending payout becomes final (its
 * `payout.*` webhook goes out); a final one does not change. In the caller's transaction, which
 * also records the event once by its id.
 */
export async function applyPayoutAction(
  tx: Tx,
  deps: Deps,
  scope: { merchantAccountId: string; paymentServiceId: string },
  action: InboundWebhookAction & { kind: PayoutActionKind },
): Promise<Record<string, unknown>> {
  const payout = await payoutOf(tx, scope, action);
  const base = { kind: action.kind, provider_transaction_id: action.providerTransactionId, transaction_id: null };
  if (!payout) return { ...base, payout_id: null, result: 'unknown_payout' };
  const attempt = await repo.findAttemptOfPayout(tx, scope.merchantAccountId, payout.id);
  if (!attempt || !isOpenAttempt(attempt.status) || payout.status !== 'pending')
    return { ...base, payout_id: payout.id, result: 'already_final' };
  await settle(
    tx,
    deps,
    attempt,
    {
      status: STATUSES[action.kind],
      providerPayoutId: action.providerTransactionId || null,
      errorCode: action.errorCode ?? null,
      rawResponseCode: action.rawResponseCode,
      rawResponseDescription: action.rawResponseDescription,
    },
    new Date(),
    actor,
  );
  return { ...base, payout_id: payout.id, result: 'applied' };
}
