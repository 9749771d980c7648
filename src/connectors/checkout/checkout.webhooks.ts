import { isCurrency } from '../../lib/currencies.ts';
import {
  bodyHmacSha256Hex,
  type InboundWebhookAction,
  type InboundWebhookActionKind,
  type InboundWebhookOutcome,
  type InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { inTable } from '../status-table.ts';
import { fromCheckoutAmount } from './checkout.amounts.ts';

/**
 * Checkout.com's webhooks (www.checkout.com/docs/developer-resources/webhooks): the body is signed
 * with the key of the workflow's webhook action, HMAC-SHA256 of the raw body, hex in the
 * `Cko-Signature` header, compared in constant time. The event's `id` (`evt_…`), inside the signed
 * body, drops replays; its signed `created_on` older than Checkout.com's retries (eight over about
 * 30 hours; we allow 3 days) is refused outright.
 */

export const CHECKOUT_WEBHOOK_MAX_AGE_MS = 3 * 24 * 3600 * 1000;
const FUTURE_SKEW_MS = 5 * 60 * 1000;

/** Event types (www.checkout.com/docs/developer-resources/webhooks/webhook-event-types) → our action, or none. */
export const EVENT_ACTIONS = {
  payment_approved: 'authorization_succeeded',
  payment_declined: 'authorization_failed',
  payment_authentication_failed: 'authorization_failed',
  payment_canceled: 'authorization_failed',
  payment_expired: null,
  payment_pending: null,
  payment_captured: 'capture_succeeded',
  payment_capture_declined: 'capture_failed',
  payment_capture_pending: null,
  payment_voided: 'void_succeeded',
  payment_void_declined: null,
  payment_refunded: 'refund_succeeded',
  payment_refund_declined: 'refund_failed',
  payment_refund_pending: null,
  payment_paid: null,
  payment_returned: null,
  payment_retry_scheduled: null,
  dispute_received: 'chargeback_opened',
  dispute_evidence_required: 'chargeback_opened',
  dispute_won: 'chargeback_won',
  dispute_lost: 'chargeback_lost',
  dispute_accepted: 'chargeback_lost',
  dispute_expired: 'chargeback_lost',
  dispute_canceled: null,
  dispute_resolved: null,
  dispute_evidence_submitted: null,
  dispute_evidence_acknowledged_by_scheme: null,
  dispute_arbitration_won: 'chargeback_won',
  dispute_arbitration_lost: 'chargeback_lost',
} as const satisfies Record<string, InboundWebhookActionKind | null>;

interface CheckoutEvent {
  id?: unknown;
  type?: unknown;
  created_on?: unknown;
  data?: {
    id?: string;
    payment_id?: string;
    action_id?: string;
    amount?: number;
    currency?: string;
    response_code?: string;
    response_summary?: string;
    reason_code?: string;
  };
}

function signatureProblem(credentials: Record<string, string>, request: InboundWebhookRequest): string | null {
  const key = credentials.webhook_signature_key;
  if (!key) return 'the payment service has no webhook_signature_key to check Cko-Signature with';
  const checked = bodyHmacSha256Hex(key, request.rawBody, request.headers['cko-signature']?.trim());
  if (checked === 'malformed') return 'the Cko-Signature header is missing or not a SHA-256 hex digest';
  return checked === 'match' ? null : 'the Cko-Signature does not match the body';
}

function actionsOf(type: string, event: CheckoutEvent): InboundWebhookAction[] {
  const kind = inTable(EVENT_ACTIONS, type) ? EVENT_ACTIONS[type] : null;
  const data = event.data ?? {};
  const dispute = type.startsWith('dispute_');
  const payment = dispute ? data.payment_id : data.id;
  if (!kind || typeof payment !== 'string' || !payment) return [];
  const currency = typeof data.currency === 'string' && isCurrency(data.currency) ? data.currency : null;
  const amount = currency ? fromCheckoutAmount(data.amount, currency) : null;
  return [
    {
      kind,
      providerTransactionId: payment,
      providerReferenceId: (dispute ? data.id : data.action_id) ?? null,
      amount,
      currency: amount === null ? null : currency,
      rawResponseCode: data.response_code ?? data.reason_code ?? null,
      rawResponseDescription: data.response_summary ?? null,
    },
  ];
}

/** `parseWebhook` of checkout-card: the signature over the raw body, the event's age, then its action. */
export function parseCheckoutWebhook(
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
): InboundWebhookOutcome {
  const problem = signatureProblem(credentials, request);
  if (problem) return { status: 'rejected', reason: problem };
  let event: CheckoutEvent;
  try {
    event = JSON.parse(request.rawBody.toString('utf8')) as CheckoutEvent;
  } catch {
    return { status: 'rejected', reason: 'the body is not JSON' };
  }
  if (typeof event?.id !== 'string' || !event.id || typeof event.type !== 'string')
    return { status: 'rejected', reason: 'the event has no id or type' };
  const created = typeof event.created_on === 'string' ? Date.parse(event.created_on) : Number.NaN;
  const age = Date.now() - created;
  if (Number.isNaN(created) || age > CHECKOUT_WEBHOOK_MAX_AGE_MS || age < -FUTURE_SKEW_MS)
    return {
      status: 'rejected',
      reason: "the event's created_on is missing, in the future or older than Checkout.com's retries",
    };
  return { status: 'accepted', events: [{ eventId: event.id, actions: actionsOf(event.type, event) }] };
}
