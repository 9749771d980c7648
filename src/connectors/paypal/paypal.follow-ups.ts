import {
  ConnectorError,
  type CaptureOutcome,
  type CaptureRequest,
  type RefundOutcome,
  type RefundRequest,
  type ResponseFacts,
  type SyncOutcome,
  type SyncRequest,
  type VoidOutcome,
  type VoidRequest,
} from '../connector.ts';
import { toPaypalMoney } from './paypal.amounts.ts';
import { bodyOf, type PaypalClient } from './paypal.client.ts';
import {
  authorizationStateOf,
  captureStateOf,
  declineOf,
  issueOf,
  refundStateOf,
  type PaypalDecline,
} from './paypal.mapping.ts';
import { minorOf, paymentsOf, upIdOf, type PaypalOrder, type PaypalPaymentResource } from './paypal.orders.ts';

/**
 * Captures, voids and refunds of a PayPal payment (Payments v2). Each is addressed to the order's
 * authorization or capture, read from the order first (the transaction keeps the order id). Each
 * POST carries the attempt id as PayPal-Request-Id, and the attempt id is also written into the
 * capture (`invoice_id`) and the refund (`custom_id`), so a call whose answer was lost is found in
 * the order later without sending it again.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const facts = (d: PaypalDecline): ResponseFacts => ({
  errorCode: d.errorCode,
  rawResponseCode: d.rawResponseCode,
  rawResponseDescription: d.rawResponseDescription,
});

async function orderOf(client: PaypalClient, credentials: Record<string, string>, orderId: string) {
  const response = await client.call(
    credentials,
    'GET',
    `/v2/checkout/orders/${encodeURIComponent(orderId)}`,
    undefined,
  );
  return bodyOf<PaypalOrder>(response);
}

async function authorizationIdOf(client: PaypalClient, credentials: Record<string, string>, orderId: string) {
  const id = paymentsOf(await orderOf(client, credentials, orderId)).authorizations[0]?.id;
  if (!id) throw new ConnectorError('invalid_request', 'The PayPal order has no authorization to act on');
  return id;
}

export async function capture(client: PaypalClient, request: CaptureRequest): Promise<CaptureOutcome> {
  const authorization = await authorizationIdOf(client, request.credentials, request.providerTransactionId);
  const response = await client.call(
    request.credentials,
    'POST',
    `/v2/payments/authorizations/${encodeURIComponent(authorization)}/capture`,
    {
      amount: toPaypalMoney(request.amount, request.currency),
      // false: more captures may follow; true: PayPal voids what is left of the authorization.
      final_capture: request.final,
      invoice_id: request.idempotencyKey,
    },
    request.idempotencyKey,
  );
  const decline = declineOf(response.status, response.json, 'capture_declined');
  if (decline) return { ...facts(decline), status: 'declined', providerCaptureId: null };
  const captured = bodyOf<PaypalPaymentResource>(response);
  const state = captureStateOf(captured.status);
  const refused =
    state === 'declined' || state === 'failed'
      ? {
          errorCode: state === 'declined' ? 'capture_declined' : 'service_error',
          rawResponseCode: captured.status ?? null,
          rawResponseDescription: captured.status_details?.reason ?? null,
        }
      : blank;
  return { ...refused, status: state, providerCaptureId: captured.id ?? null };
}

export async function voidAuthorization(client: PaypalClient, request: VoidRequest): Promise<VoidOutcome> {
  const authorization = await authorizationIdOf(client, request.credentials, request.providerTransactionId);
  const response = await client.call(
    request.credentials,
    'POST',
    `/v2/payments/authorizations/${encodeURIComponent(authorization)}/void`,
    undefined,
    request.idempotencyKey,
  );
  // Voided already (our own earlier call whose answer was lost): the void stands.
  if (response.status === 422 && issueOf(response.json).issue === 'PREVIOUSLY_VOIDED')
    return { ...blank, status: 'succeeded' };
  const decline = declineOf(response.status, response.json, 'void_declined');
  if (decline) return { ...facts(decline), status: 'declined' };
  bodyOf(response);
  return { ...blank, status: 'succeeded' };
}

/** What is left to refund of each capture of the order (PayPal refunds one capture at a time). */
function refundable(order: PaypalOrder): Array<{ id: string; left: number }> {
  const { captures, refunds } = paymentsOf(order);
  return captures
    .filter((c) => c.id && (c.status === 'COMPLETED' || c.status === 'PARTIALLY_REFUNDED'))
    .map((c) => {
      const refunded = refunds
        .filter((r) => upIdOf(r) === c.id && r.status !== 'FAILED' && r.status !== 'CANCELLED')
        .reduce((sum, r) => sum + (minorOf(r.amount) ?? 0), 0);
      return { id: c.id!, left: (minorOf(c.amount) ?? 0) - refunded };
    });
}

/**
 * A refund of one capture: the first capture with enough left. A refund larger than every
 * capture's remainder is refused here (it would take two refunds at PayPal, which one refund of
 * ours cannot report): refund it in parts instead.
 */
export async function refund(client: PaypalClient, request: RefundRequest): Promise<RefundOutcome> {
  const order = await orderOf(client, request.credentials, request.providerTransactionId);
  const target = refundable(order).find((c) => c.left >= request.amount);
  if (!target)
    return {
      errorCode: 'refund_declined',
      rawResponseCode: 'REFUND_AMOUNT_EXCEEDED',
      rawResponseDescription:
        'No capture of this PayPal order has this amount left to refund (PayPal refunds one capture at a time)',
      status: 'declined',
      providerRefundId: null,
    };
  const response = await client.call(
    request.credentials,
    'POST',
    `/v2/payments/captures/${encodeURIComponent(target.id)}/refund`,
    { amount: toPaypalMoney(request.amount, request.currency), custom_id: request.idempotencyKey },
    request.idempotencyKey,
  );
  const decline = declineOf(response.status, response.json, 'refund_declined');
  if (decline) return { ...facts(decline), status: 'declined', providerRefundId: null };
  const made = bodyOf<PaypalPaymentResource>(response);
  const state = refundStateOf(made.status);
  const refused =
    state === 'failed'
      ? {
          errorCode: 'refund_declined',
          rawResponseCode: made.status ?? null,
          rawResponseDescription: made.status_details?.reason ?? null,
        }
      : blank;
  return { ...refused, status: state, providerRefundId: made.id ?? null };
}

const CAPTURE_SYNC = { succeeded: 'captured', pending: 'pending', declined: 'declined', failed: 'failed' } as const;
const REFUND_SYNC = { succeeded: 'refunded', processing: 'refund_pending', failed: 'failed' } as const;

/**
 * A capture, void or refund, asked again: by its own id when its answer came (GET the capture or
 * refund), else in the order by the attempt id written into it (`not_found`: it never arrived).
 */
export async function syncFollowUp(client: PaypalClient, request: SyncRequest): Promise<SyncOutcome> {
  const orderId = request.paymentProviderTransactionId ?? request.providerTransactionId;
  const ownId = request.providerTransactionId !== orderId ? request.providerTransactionId : null;
  const answer = (status: SyncOutcome['status'], resource: PaypalPaymentResource | undefined): SyncOutcome => ({
    ...(status === 'declined' || status === 'failed'
      ? {
          errorCode: `${request.operation}_declined`,
          rawResponseCode: resource?.status ?? null,
          rawResponseDescription: resource?.status_details?.reason ?? null,
        }
      : blank),
    status,
    providerTransactionId: resource?.id ?? request.providerTransactionId,
  });
  const notFound: SyncOutcome = { ...blank, status: 'not_found', providerTransactionId: null };
  if (request.operation === 'increment' || !orderId) return notFound;
  if (ownId && (request.operation === 'capture' || request.operation === 'refund')) {
    const kind = request.operation === 'capture' ? 'captures' : 'refunds';
    const response = await client.call(
      request.credentials,
      'GET',
      `/v2/payments/${kind}/${encodeURIComponent(ownId)}`,
      undefined,
    );
    if (response.status === 404) return notFound;
    const resource = bodyOf<PaypalPaymentResource>(response);
    return request.operation === 'capture'
      ? answer(CAPTURE_SYNC[captureStateOf(resource.status)], resource)
      : answer(REFUND_SYNC[refundStateOf(resource.status)], resource);
  }
  const payments = paymentsOf(await orderOf(client, request.credentials, orderId));
  if (request.operation === 'void') {
    const authorization = payments.authorizations[0];
    return authorization ? answer(authorizationStateOf(authorization.status), authorization) : notFound;
  }
  if (request.operation === 'capture') {
    const found = payments.captures.find((c) => c.invoice_id === request.idempotencyKey);
    return found ? answer(CAPTURE_SYNC[captureStateOf(found.status)], found) : notFound;
  }
  const found = payments.refunds.find((r) => r.custom_id === request.idempotencyKey);
  return found ? answer(REFUND_SYNC[refundStateOf(found.status)], found) : notFound;
}
