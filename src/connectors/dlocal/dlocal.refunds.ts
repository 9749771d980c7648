import type { RefundOutcome, RefundRequest, ResponseFacts, SyncOutcome, SyncRequest } from '../connector.ts';
import { toDlocalAmount } from './dlocal.amounts.ts';
import { bodyOf, type DlocalClient } from './dlocal.client.ts';
import { declineOf, refundStateOf } from './dlocal.mapping.ts';

/**
 * Refunds of a paid PIX payment (docs.dlocal.com/docs/refunds): `POST /refunds` with the payment's
 * id and amount; dLocal returns the money to the buyer's account by PIX, usually `PENDING` first,
 * then reports the outcome to the refund's `notification_url` (dlocal.webhooks.ts); `sync` reads it
 * (`GET /refunds/{id}`). dLocal's refunds take no idempotency key of ours: a refund whose answer was
 * lost stays pending until dLocal's notification names it (never sent again, which could refund twice).
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

interface DlocalRefund {
  id?: string;
  payment_id?: string;
  status?: string;
  status_code?: string | number;
  status_detail?: string;
}

const facts = (r: DlocalRefund) => ({
  rawResponseCode: r.status_code === undefined ? (r.status ?? null) : String(r.status_code),
  rawResponseDescription: r.status_detail ?? null,
});

export async function refund(client: DlocalClient, request: RefundRequest): Promise<RefundOutcome> {
  const response = await client.call(request.credentials, 'POST', '/refunds', {
    payment_id: request.providerTransactionId,
    amount: toDlocalAmount(request.amount, request.currency),
    currency: request.currency,
    description: request.reason ?? request.reference,
    ...(request.notificationUrl ? { notification_url: request.notificationUrl } : {}),
  });
  const decline = declineOf(response.status, response.json, 'refund_declined');
  if (decline) return { status: 'declined', providerRefundId: null, ...decline };
  const answer = bodyOf<DlocalRefund>(response);
  const status = refundStateOf(answer.status);
  return {
    ...blank,
    ...(status === 'declined' || status === 'failed'
      ? { errorCode: status === 'declined' ? 'refund_declined' : 'service_error', ...facts(answer) }
      : {}),
    status,
    providerRefundId: answer.id ?? null,
  };
}

/**
 * A refund's state by its id (`GET /refunds/{id}`); without one (a lost answer: the engine then
 * names the payment instead), pending: dLocal's refund notification will name it.
 */
export async function syncRefund(client: DlocalClient, request: SyncRequest): Promise<SyncOutcome> {
  if (!request.providerTransactionId || request.providerTransactionId === request.paymentProviderTransactionId)
    return { ...blank, status: 'refund_pending', providerTransactionId: null };
  const response = await client.call(
    request.credentials,
    'GET',
    `/refunds/${encodeURIComponent(request.providerTransactionId)}`,
  );
  if (response.status === 404) return { ...blank, status: 'not_found', providerTransactionId: null };
  const answer = bodyOf<DlocalRefund>(response);
  const state = refundStateOf(answer.status);
  const id = answer.id ?? request.providerTransactionId;
  if (state === 'succeeded') return { ...blank, status: 'refunded', providerTransactionId: id };
  if (state === 'processing') return { ...blank, status: 'refund_pending', providerTransactionId: id };
  return {
    errorCode: state === 'declined' ? 'refund_declined' : 'service_error',
    ...facts(answer),
    status: state,
    providerTransactionId: id,
  };
}
