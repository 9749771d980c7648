import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type ResponseFacts,
  type SyncOutcome,
  type SyncRequest,
} from '../connector.ts';
import { toPaypalMoney } from './paypal.amounts.ts';
import { bodyOf, type PaypalClient } from './paypal.client.ts';
import {
  authorizationStateOf,
  captureStateOf,
  declineOf,
  issueOf,
  orderStateOf,
  type PaypalDecline,
} from './paypal.mapping.ts';
import { approvalUrlOf, CANCEL_MARKER, orderBody, payerOf, paymentsOf, type PaypalOrder } from './paypal.orders.ts';

/**
 * A PayPal payment: an order (Orders v2) the buyer approves on PayPal's page, then authorized (or
 * captured, for intent capture) by us when the buyer is back or reconciliation asks. The order id
 * is the transaction's `payment_service_transaction_id` from start to end: every event PayPal
 * sends about its authorization, captures and refunds names it.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const orderPath = (id: string) => `/v2/checkout/orders/${encodeURIComponent(id)}`;

function outcome(status: AuthorizeOutcome['status'], id: string | null, extra: Partial<AuthorizeOutcome> = {}) {
  return {
    ...blank,
    status,
    providerTransactionId: id,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: id ? { order_id: id } : {},
    ...extra,
  } satisfies AuthorizeOutcome;
}

const declineFacts = (d: PaypalDecline): ResponseFacts => ({
  errorCode: d.errorCode,
  rawResponseCode: d.rawResponseCode,
  rawResponseDescription: d.rawResponseDescription,
});

/** `POST /v2/checkout/orders` with the attempt id as PayPal-Request-Id: the buyer's page, or PayPal's refusal. */
export async function createOrder(client: PaypalClient, request: AuthorizeRequest): Promise<AuthorizeOutcome> {
  if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'paypal')
    throw new ConnectorError('invalid_request', 'The PayPal connector takes the paypal method only');
  const response = await client.call(
    request.credentials,
    'POST',
    '/v2/checkout/orders',
    orderBody(request),
    request.idempotencyKey,
  );
  const decline = declineOf(response.status, response.json);
  if (decline) return outcome('declined', null, declineFacts(decline));
  const order = bodyOf<PaypalOrder>(response);
  const state = orderStateOf(order.status);
  const approvalUrl = approvalUrlOf(order);
  if (state === 'waiting' && approvalUrl) return outcome('buyer_approval_pending', order.id ?? null, { approvalUrl });
  // A new order is waiting for its buyer; anything else is not something we asked for.
  throw new ConnectorError('timeout', `PayPal answered a new order with status ${String(order.status)}`, {
    code: String(order.status),
    description: 'unexpected order status',
  });
}

/** A completed order's payment: its authorization (intent authorize) or capture (intent capture). */
function paymentOutcome(order: PaypalOrder, intent: 'authorize' | 'capture'): SyncOutcome {
  const id = order.id ?? null;
  const { authorizations, captures } = paymentsOf(order);
  const payment = intent === 'capture' ? captures[0] : authorizations[0];
  if (!payment) throw new ConnectorError('timeout', 'PayPal answered a completed order without its payment');
  const reason = payment.status_details?.reason ?? null;
  const refused = (code: string) => ({
    errorCode: code,
    rawResponseCode: payment.status ?? null,
    rawResponseDescription: reason,
  });
  const providerAccount = payerOf(order);
  if (intent === 'authorize') {
    const status = authorizationStateOf(payment.status);
    return status === 'declined'
      ? { ...refused('do_not_honor'), status, providerTransactionId: id }
      : { ...blank, status, providerTransactionId: id, providerAccount };
  }
  const state = captureStateOf(payment.status);
  if (state === 'succeeded') return { ...blank, status: 'captured', providerTransactionId: id, providerAccount };
  if (state === 'pending') return { ...blank, status: 'capture_pending', providerTransactionId: id, providerAccount };
  return {
    ...refused(state === 'declined' ? 'do_not_honor' : 'service_error'),
    status: state,
    providerTransactionId: id,
  };
}

/** The approved order authorized (or captured); PayPal's refusal of the buyer's funding is a decline. */
async function completeOrder(client: PaypalClient, request: SyncRequest, orderId: string): Promise<SyncOutcome> {
  const action = request.intent === 'capture' ? 'capture' : 'authorize';
  const response = await client.call(
    request.credentials,
    'POST',
    `${orderPath(orderId)}/${action}`,
    {},
    `${request.idempotencyKey}-${action}`,
  );
  const { issue } = issueOf(response.json);
  // Completed by an earlier call (another sync, the buyer's return): read what it made.
  if (response.status === 422 && (issue === 'ORDER_ALREADY_AUTHORIZED' || issue === 'ORDER_ALREADY_CAPTURED'))
    return paymentOutcome(
      bodyOf<PaypalOrder>(await client.call(request.credentials, 'GET', orderPath(orderId), undefined)),
      request.intent,
    );
  const decline = declineOf(response.status, response.json);
  if (decline) return { ...declineFacts(decline), status: 'declined', providerTransactionId: orderId };
  return paymentOutcome(bodyOf<PaypalOrder>(response), request.intent);
}

/**
 * The order created with this attempt id, found by sending the create again with the same
 * PayPal-Request-Id (PayPal answers the order it made for it). Its buyer never got its page (the
 * answer carrying it was lost), so an order still waiting cannot be paid: the payment failed, and
 * the order expires unapproved at PayPal. When the first request never arrived, this creates that
 * unpaid order.
 */
async function orderOfLostAnswer(client: PaypalClient, request: SyncRequest): Promise<SyncOutcome> {
  const body = {
    intent: request.intent === 'capture' ? 'CAPTURE' : 'AUTHORIZE',
    purchase_units: [
      {
        reference_id: request.reference,
        custom_id: request.idempotencyKey,
        amount: toPaypalMoney(request.amount, request.currency),
      },
    ],
  };
  const response = await client.call(request.credentials, 'POST', '/v2/checkout/orders', body, request.idempotencyKey);
  const decline = declineOf(response.status, response.json);
  if (decline) return { ...declineFacts(decline), status: 'declined', providerTransactionId: null };
  const order = bodyOf<PaypalOrder>(response);
  const id = order.id ?? null;
  if (orderStateOf(order.status) === 'waiting')
    return {
      errorCode: 'service_network_error',
      rawResponseCode: String(order.status),
      rawResponseDescription: "PayPal's answer with the buyer's page was lost: the order expires unapproved",
      status: 'failed',
      providerTransactionId: id,
    };
  return id ? syncOfOrder(client, request, id) : { ...blank, status: 'not_found', providerTransactionId: null };
}

/** The order's state by its id: waiting, cancelled by the buyer, approved (completed now), or completed. */
async function syncOfOrder(client: PaypalClient, request: SyncRequest, orderId: string): Promise<SyncOutcome> {
  const response = await client.call(request.credentials, 'GET', orderPath(orderId), undefined);
  if (response.status === 404) return { ...blank, status: 'not_found', providerTransactionId: null };
  const order = bodyOf<PaypalOrder>(response);
  switch (orderStateOf(order.status)) {
    case 'waiting':
      // Only our own cancel_url carries the marker; PayPal's state decides everything else.
      return request.returnParams?.[CANCEL_MARKER]
        ? {
            errorCode: 'buyer_declined',
            rawResponseCode: 'PAYER_CANCELLED',
            rawResponseDescription: 'The buyer cancelled on PayPal',
            status: 'declined',
            providerTransactionId: orderId,
          }
        : { ...blank, status: 'buyer_approval_pending', providerTransactionId: orderId };
    case 'voided':
      return {
        errorCode: 'do_not_honor',
        rawResponseCode: 'VOIDED',
        rawResponseDescription: 'PayPal voided the order',
        status: 'declined',
        providerTransactionId: orderId,
      };
    case 'approved':
      return completeOrder(client, request, orderId);
    case 'completed':
      return paymentOutcome(order, request.intent);
  }
}

/** Sync of an authorization: by the order id, or, when the create got no answer, by its PayPal-Request-Id. */
export function syncAuthorization(client: PaypalClient, request: SyncRequest): Promise<SyncOutcome> {
  return request.providerTransactionId
    ? syncOfOrder(client, request, request.providerTransactionId)
    : orderOfLostAnswer(client, request);
}
