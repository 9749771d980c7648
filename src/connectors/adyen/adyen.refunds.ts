import type { CallBase, RefundOutcome, RefundRequest, SyncOutcome, SyncRequest } from '../connector.ts';
import type { AdyenClient } from './adyen.client.ts';
import { amountOf } from './adyen.requests.ts';
import { modificationOutcome } from './adyen.sync.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

type RefundCall = CallBase & { reference: string; amount: number; currency: string };

/** A refund's body: the amount, and what the method adds (Klarna's lines); the same body again when re-sent. */
export function refundBody(request: RefundCall, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    ...extra,
  };
}

/** `POST /payments/{pspReference}/refunds` of a payment method's payment: `processing` until Adyen's REFUND webhook. */
export async function refundPayment(
  client: AdyenClient,
  request: RefundRequest,
  body: Record<string, unknown>,
): Promise<RefundOutcome> {
  const outcome = await modificationOutcome(
    client,
    request,
    `/payments/${encodeURIComponent(request.providerTransactionId)}/refunds`,
    body,
    'refund_declined',
  );
  return {
    ...outcome.facts,
    status: outcome.status === 'pending' ? 'processing' : outcome.status,
    providerRefundId: outcome.pspReference,
  };
}

/**
 * A capture or refund asked again: re-posted with its key and exactly its first body, to the payment
 * (a modification's own pspReference is no payment): replayed, or made as first meant if it never
 * arrived; pending until Adyen's webhook.
 */
export async function resendModification(
  client: AdyenClient,
  request: SyncRequest,
  path: 'captures' | 'refunds',
  body: Record<string, unknown>,
): Promise<SyncOutcome> {
  const payment = request.paymentProviderTransactionId ?? request.providerTransactionId ?? '';
  const outcome = await modificationOutcome(
    client,
    request,
    `/payments/${encodeURIComponent(payment)}/${path}`,
    body,
    path === 'captures' ? 'capture_declined' : 'refund_declined',
  );
  if (outcome.status === 'pending')
    return { ...blank, status: 'pending', providerTransactionId: request.providerTransactionId };
  return { ...outcome.facts, status: outcome.status, providerTransactionId: request.providerTransactionId };
}
