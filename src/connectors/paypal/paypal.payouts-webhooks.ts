import type { InboundWebhookAction, InboundWebhookActionKind } from '../connector-webhooks.ts';
import { payoutErrorCodeOf } from './paypal.payouts-mapping.ts';

/**
 * PayPal's Payouts webhook events (developer.paypal.com/api/rest/webhooks/event-names/#payouts) as
 * our payout actions. An item event's resource is the payout item (`payout_batch_id`,
 * `sender_batch_id`: our attempt id, `transaction_status`, `errors`); a batch event's is the batch
 * (`batch_header`). The payout is found by the batch id, or by the attempt id when our call's
 * answer was lost. Events that change nothing final (UNCLAIMED, HELD: still pending) have none.
 */
const EVENTS = {
  'PAYMENT.PAYOUTS-ITEM.SUCCEEDED': 'payout_succeeded',
  'PAYMENT.PAYOUTS-ITEM.FAILED': 'payout_failed',
  'PAYMENT.PAYOUTS-ITEM.BLOCKED': 'payout_declined',
  'PAYMENT.PAYOUTS-ITEM.DENIED': 'payout_declined',
  // Not claimed within 30 days (or canceled by us): PayPal gave the money back.
  'PAYMENT.PAYOUTS-ITEM.RETURNED': 'payout_declined',
  'PAYMENT.PAYOUTS-ITEM.CANCELED': 'payout_declined',
  // After a success the payout is final and these change nothing; before it, the money did not stay.
  'PAYMENT.PAYOUTS-ITEM.REFUNDED': 'payout_failed',
  'PAYMENT.PAYOUTS-ITEM.REVERSED': 'payout_failed',
  'PAYMENT.PAYOUTS-ITEM.UNCLAIMED': null,
  'PAYMENT.PAYOUTS-ITEM.HELD': null,
  'PAYMENT.PAYOUTSBATCH.DENIED': 'payout_declined',
  'PAYMENT.PAYOUTSBATCH.PROCESSING': null,
  'PAYMENT.PAYOUTSBATCH.SUCCESS': null,
} as const satisfies Record<string, InboundWebhookActionKind | null>;

interface PayoutResource {
  payout_batch_id?: string;
  sender_batch_id?: string;
  transaction_status?: string;
  errors?: { name?: string; message?: string };
  batch_header?: {
    payout_batch_id?: string;
    batch_status?: string;
    sender_batch_header?: { sender_batch_id?: string };
  };
}

/** Whether the event is one of the Payouts API's. */
export const isPayoutEvent = (type: unknown): type is keyof typeof EVENTS =>
  typeof type === 'string' && Object.hasOwn(EVENTS, type);

export function payoutActionsOf(type: keyof typeof EVENTS, resource: Record<string, unknown>): InboundWebhookAction[] {
  const kind = EVENTS[type];
  const r = resource as PayoutResource;
  const batchId = r.payout_batch_id ?? r.batch_header?.payout_batch_id ?? null;
  const senderBatchId = r.sender_batch_id ?? r.batch_header?.sender_batch_header?.sender_batch_id ?? null;
  if (!kind || (!batchId && !senderBatchId)) return [];
  const errorName = r.errors?.name ?? null;
  return [
    {
      kind,
      providerTransactionId: batchId ?? '',
      providerReferenceId: senderBatchId,
      amount: null,
      currency: null,
      rawResponseCode: errorName ?? r.transaction_status ?? r.batch_header?.batch_status ?? null,
      rawResponseDescription: r.errors?.message ?? null,
      errorCode:
        kind === 'payout_succeeded'
          ? null
          : payoutErrorCodeOf(kind === 'payout_failed' ? 'failed' : 'declined', errorName),
    },
  ];
}
