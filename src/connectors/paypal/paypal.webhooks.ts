import { isCurrency } from '../../lib/currencies.ts';
import type {
  InboundWebhookAction,
  InboundWebhookActionKind,
  InboundWebhookOutcome,
  InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { RawBody } from '../provider-http.ts';
import { bodyOf, type PaypalClient } from './paypal.client.ts';
import { isPayoutEvent, payoutActionsOf } from './paypal.payouts-webhooks.ts';
import { minorOf, upIdOf, type PaypalMoney, type PaypalPaymentResource } from './paypal.orders.ts';

/**
 * PayPal's webhook events (developer.paypal.com/api/rest/webhooks). PayPal signs each delivery
 * with its own certificate; we have PayPal check it (`POST /v1/notifications/verify-webhook-signature`
 * with the transmission headers, the service's `webhook_id` and the event exactly as received), so a
 * forged or altered event is refused (401, nothing written). The event's `id`, inside the signed
 * body, drops replays; a transmission older than PayPal's retries is refused outright.
 */

/** PayPal retries a delivery for up to 3 days; a transmission older than this is a replay. */
export const PAYPAL_WEBHOOK_MAX_AGE_MS = 4 * 24 * 3600 * 1000;
/** Clock drift allowed for a transmission time in the future. */
const FUTURE_SKEW_MS = 5 * 60 * 1000;

const HEADERS = {
  transmission_id: 'paypal-transmission-id',
  transmission_time: 'paypal-transmission-time',
  transmission_sig: 'paypal-transmission-sig',
  cert_url: 'paypal-cert-url',
  auth_algo: 'paypal-auth-algo',
} as const;

/** The fields of a dispute resource (CUSTOMER.DISPUTE.*) we read. */
interface PaypalDispute {
  dispute_id?: string;
  reason?: string;
  dispute_amount?: PaypalMoney;
  dispute_outcome?: { outcome_code?: string };
  disputed_transactions?: Array<{ seller_transaction_id?: string }>;
}

interface PaypalEvent {
  id?: string;
  event_type?: string;
  resource?: Record<string, unknown>;
}

/** Whether PayPal confirms the signature; a reason when it does not. */
async function verified(
  client: PaypalClient,
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
): Promise<string | null> {
  const webhookId = credentials.webhook_id?.trim();
  if (!webhookId || !credentials.client_id || !credentials.client_secret)
    return 'the payment service has no webhook_id or API credentials to verify PayPal events with';
  const values: Record<string, string> = {};
  for (const [field, header] of Object.entries(HEADERS)) {
    const value = request.headers[header];
    if (!value) return `the ${header} header is missing`;
    values[field] = value;
  }
  const sent = Date.parse(values.transmission_time!);
  const age = Date.now() - sent;
  if (Number.isNaN(sent) || age > PAYPAL_WEBHOOK_MAX_AGE_MS || age < -FUTURE_SKEW_MS)
    return 'the transmission time is missing, in the future or older than PayPal retries';
  // The event goes back byte for byte: PayPal's signature covers the body as it sent it.
  const head = JSON.stringify({ ...values, webhook_id: webhookId });
  const text = `${head.slice(0, -1)},"webhook_event":${request.rawBody.toString('utf8')}}`;
  try {
    const response = await client.call(
      credentials,
      'POST',
      '/v1/notifications/verify-webhook-signature',
      new RawBody(text, 'application/json'),
    );
    const answer = bodyOf<{ verification_status?: string }>(response);
    return answer.verification_status === 'SUCCESS' ? null : 'PayPal did not verify the signature';
  } catch {
    return 'PayPal could not be asked to verify the signature';
  }
}

function moneyOf(money: PaypalMoney | undefined): { amount: number | null; currency: string | null } {
  const currency = money?.currency_code && isCurrency(money.currency_code) ? money.currency_code : null;
  return { amount: currency ? minorOf(money) : null, currency };
}

function action(
  kind: InboundWebhookActionKind,
  orderId: string | null | undefined,
  reference: string | null | undefined,
  money: PaypalMoney | undefined,
  raw: string | null = null,
): InboundWebhookAction[] {
  if (!orderId) return [];
  return [
    {
      kind,
      providerTransactionId: orderId,
      providerReferenceId: reference ?? null,
      ...moneyOf(money),
      rawResponseCode: raw,
      rawResponseDescription: null,
    },
  ];
}

/** The order of a capture (a refund's or a dispute's), asked from PayPal: those events do not name it. */
async function orderOfCapture(client: PaypalClient, credentials: Record<string, string>, captureId: string | null) {
  if (!captureId) return null;
  const response = await client.call(
    credentials,
    'GET',
    `/v2/payments/captures/${encodeURIComponent(captureId)}`,
    undefined,
  );
  if (response.status === 404) return null;
  return bodyOf<PaypalPaymentResource>(response).supplementary_data?.related_ids?.order_id ?? null;
}

/** `dispute_outcome.outcome_code` of a resolved dispute → won or lost; others (a payout by PayPal itself, none) change nothing. */
const DISPUTE_OUTCOMES: Readonly<Record<string, InboundWebhookActionKind>> = {
  RESOLVED_BUYER_FAVOUR: 'chargeback_lost',
  RESOLVED_SELLER_FAVOUR: 'chargeback_won',
  CANCELED_BY_BUYER: 'chargeback_won',
};

/** A dispute opened or resolved: its capture's order, the chargeback action of its outcome. */
async function disputeActions(
  client: PaypalClient,
  credentials: Record<string, string>,
  type: 'CUSTOMER.DISPUTE.CREATED' | 'CUSTOMER.DISPUTE.RESOLVED',
  dispute: PaypalDispute,
): Promise<InboundWebhookAction[]> {
  const kind =
    type === 'CUSTOMER.DISPUTE.CREATED'
      ? 'chargeback_opened'
      : DISPUTE_OUTCOMES[String(dispute.dispute_outcome?.outcome_code)];
  const capture = dispute.disputed_transactions?.[0]?.seller_transaction_id;
  if (!kind || typeof capture !== 'string') return [];
  const order = await orderOfCapture(client, credentials, capture);
  return action(kind, order, dispute.dispute_id, dispute.dispute_amount, dispute.reason ?? null);
}

/**
 * One event's actions. Payment events name their order in `supplementary_data.related_ids`; a
 * refund names its capture (link `up`) and a dispute its capture (`seller_transaction_id`), whose
 * order PayPal is asked for. CHECKOUT.ORDER.APPROVED has no action: the order is only approved,
 * and it is authorized by us when the buyer comes back or reconciliation asks.
 */
async function actionsOf(
  client: PaypalClient,
  credentials: Record<string, string>,
  event: PaypalEvent,
): Promise<InboundWebhookAction[]> {
  const resource = (event.resource ?? {}) as PaypalPaymentResource & PaypalDispute;
  const order = resource.supplementary_data?.related_ids?.order_id;
  switch (event.event_type) {
    case 'PAYMENT.AUTHORIZATION.CREATED':
      return action('authorization_succeeded', order, resource.id, resource.amount);
    case 'PAYMENT.AUTHORIZATION.VOIDED':
      return action('void_succeeded', order, resource.id, resource.amount);
    case 'PAYMENT.CAPTURE.COMPLETED':
      return action('capture_succeeded', order, resource.id, resource.amount);
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED':
      return action('capture_failed', order, resource.id, resource.amount, resource.status ?? null);
    case 'PAYMENT.CAPTURE.REFUNDED':
      return action(
        'refund_succeeded',
        await orderOfCapture(client, credentials, upIdOf(resource)),
        resource.id,
        resource.amount,
      );
    case 'CUSTOMER.DISPUTE.CREATED':
    case 'CUSTOMER.DISPUTE.RESOLVED':
      return disputeActions(client, credentials, event.event_type, resource);
    default:
      return isPayoutEvent(event.event_type) ? payoutActionsOf(event.event_type, event.resource ?? {}) : [];
  }
}

/** `parseWebhook` of paypal-paypal: PayPal verifies the signature, then the event becomes our actions. */
export async function parsePaypalWebhook(
  client: PaypalClient,
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
): Promise<InboundWebhookOutcome> {
  let event: PaypalEvent;
  try {
    event = JSON.parse(request.rawBody.toString('utf8')) as PaypalEvent;
  } catch {
    return { status: 'rejected', reason: 'the body is not JSON' };
  }
  if (typeof event?.id !== 'string' || !event.id) return { status: 'rejected', reason: 'the event has no id' };
  const problem = await verified(client, credentials, request);
  if (problem) return { status: 'rejected', reason: problem };
  return { status: 'accepted', events: [{ eventId: event.id, actions: await actionsOf(client, credentials, event) }] };
}
