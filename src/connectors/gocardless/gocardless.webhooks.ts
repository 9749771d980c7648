import {
  bodyHmacSha256Hex,
  type InboundWebhookAction,
  type InboundWebhookActionKind,
  type InboundWebhookEvent,
  type InboundWebhookOutcome,
  type InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { fromGoCardlessAmount } from './gocardless.amounts.ts';
import type { GoCardlessClient } from './gocardless.client.ts';
import { META_BILLING_REQUEST, type GcPayment, type GcRefund } from './gocardless.resources.ts';

/**
 * GoCardless's webhooks (developer.gocardless.com/getting-started/api/staying-up-to-date-with-webhooks):
 * a POST with a batch of events `{events: [...]}`, signed with the endpoint's secret: the
 * `Webhook-Signature` header is the hex HMAC-SHA256 of the body as sent. A bad signature is
 * refused (401, nothing written). Each event has its own id, applied once by the engine, so a
 * batch GoCardless sends again (it retries until it gets a 2xx) changes nothing twice. GoCardless
 * signs no timestamp, so the event id is the only replay guard.
 */

interface GcEvent {
  id?: string;
  resource_type?: string;
  action?: string;
  links?: { payment?: string; refund?: string; mandate?: string };
  details?: { cause?: string; description?: string; reason_code?: string };
}

/** Whether the signature is the HMAC of the raw body with the endpoint secret (compared in constant time). */
export function signatureValid(secret: string, rawBody: Buffer, signature: string | undefined): boolean {
  return bodyHmacSha256Hex(secret, rawBody, signature) === 'match';
}

/** Payment events (`resource_type` payments) → our actions; other actions change nothing. */
const PAYMENT_ACTIONS: Readonly<Record<string, InboundWebhookActionKind>> = {
  confirmed: 'capture_succeeded',
  failed: 'capture_failed',
  cancelled: 'capture_failed',
  customer_approval_denied: 'capture_failed',
  charged_back: 'chargeback_opened',
  chargeback_cancelled: 'chargeback_won',
  chargeback_settled: 'chargeback_lost',
};
/** Refund events. */
const REFUND_ACTIONS: Readonly<Record<string, InboundWebhookActionKind>> = {
  paid: 'refund_succeeded',
  failed: 'refund_failed',
  bounced: 'refund_failed',
  funds_returned: 'refund_failed',
};

/**
 * One event's actions. Events name the payment or refund only (`links`); the payment is read
 * from GoCardless for its billing request (our transaction's id there, in its metadata) and its
 * amount. A payment we did not make (no mark) has no action. Mandate and billing request events
 * have none either: the payer's return and reconciliation read those.
 */
async function actionsOf(
  client: GoCardlessClient,
  credentials: Record<string, string>,
  event: GcEvent,
): Promise<InboundWebhookAction[]> {
  const table =
    event.resource_type === 'payments' ? PAYMENT_ACTIONS : event.resource_type === 'refunds' ? REFUND_ACTIONS : null;
  const kind = table?.[String(event.action)];
  if (!kind) return [];
  let refund: GcRefund | null = null;
  let paymentId = event.links?.payment ?? null;
  if (event.resource_type === 'refunds' && event.links?.refund) {
    refund = await client.resource<GcRefund>(credentials, 'refunds', event.links.refund);
    paymentId = refund?.links?.payment ?? paymentId;
  }
  if (!paymentId) return [];
  const payment = await client.resource<GcPayment>(credentials, 'payments', paymentId);
  const billingRequest = payment?.metadata?.[META_BILLING_REQUEST];
  if (!payment || !billingRequest) return [];
  const money = refund ?? payment;
  const currency =
    typeof money.currency === 'string' && fromGoCardlessAmount(0, money.currency) !== null ? money.currency : null;
  return [
    {
      kind,
      providerTransactionId: billingRequest,
      providerReferenceId: (event.resource_type === 'refunds' ? event.links?.refund : payment.id) ?? null,
      amount: currency ? fromGoCardlessAmount(money.amount, currency) : null,
      currency,
      rawResponseCode: event.details?.reason_code ?? event.details?.cause ?? null,
      rawResponseDescription: event.details?.description ?? null,
    },
  ];
}

/** `parseWebhook` of gocardless-gocardless: the signature, then each event of the batch as our actions. */
export async function parseGoCardlessWebhook(
  client: GoCardlessClient,
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
): Promise<InboundWebhookOutcome> {
  const secret = credentials.webhook_secret;
  if (!secret)
    return { status: 'rejected', reason: 'the payment service has no webhook_secret to verify GoCardless events with' };
  if (!signatureValid(secret, request.rawBody, request.headers['webhook-signature']))
    return { status: 'rejected', reason: 'the Webhook-Signature does not match the body' };
  let body: { events?: GcEvent[] };
  try {
    body = JSON.parse(request.rawBody.toString('utf8')) as { events?: GcEvent[] };
  } catch {
    return { status: 'rejected', reason: 'the body is not JSON' };
  }
  if (!Array.isArray(body?.events)) return { status: 'rejected', reason: 'the body has no events' };
  const events: InboundWebhookEvent[] = [];
  for (const event of body.events) {
    if (typeof event?.id !== 'string' || !event.id) continue;
    events.push({ eventId: event.id, actions: await actionsOf(client, credentials, event) });
  }
  return { status: 'accepted', events };
}
