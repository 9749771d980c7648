import type {
  InboundWebhookAction,
  InboundWebhookActionKind,
  InboundWebhookOutcome,
  InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { fromDlocalAmount } from './dlocal.amounts.ts';
import { paymentStateOf, refundStateOf, UNPAID_CODE } from './dlocal.mapping.ts';
import { dlocalSignature, sameSignature, signatureOf } from './dlocal.signature.ts';

/**
 * dLocal's notifications (docs.dlocal.com/docs/notifications): a POST to the `notification_url` of
 * the payment or refund, with the payment (or refund) object as its body, signed as our requests
 * are: `Authorization: V2-HMAC-SHA256, Signature: <hex HMAC-SHA256 of X-Login + X-Date + body>` with
 * the account's secret key. We check it over the raw body, that `X-Login` is the service's, and
 * that `X-Date` is recent. The event id is built from signed fields (the object's id and status),
 * so a replay of the same state is dropped.
 */

/** A notification signed longer ago than this is a replay (dLocal retries failed deliveries for hours, not days). */
export const DLOCAL_NOTIFICATION_MAX_AGE_MS = 3 * 24 * 3600 * 1000;
const FUTURE_SKEW_MS = 5 * 60 * 1000;

interface DlocalNotification {
  id?: string;
  /** Present on a refund's notification: the refunded payment. */
  payment_id?: string;
  status?: string;
  status_code?: string | number;
  status_detail?: string;
  amount?: number;
  currency?: string;
}

/** Why the request is not dLocal's, or null when its signature, login and date check out. */
function refusal(credentials: Record<string, string>, request: InboundWebhookRequest, now: number): string | null {
  const login = credentials.x_login?.trim();
  if (!login || !credentials.secret_key)
    return 'the payment service has no x_login or secret_key to verify dLocal notifications with';
  const date = request.headers['x-date'];
  const sent = request.headers['x-login'];
  const signature = signatureOf(request.headers.authorization);
  if (!date || !sent || !signature) return 'the X-Date, X-Login or V2-HMAC-SHA256 Authorization header is missing';
  if (sent !== login) return "the notification's X-Login is not this payment service's";
  const expected = dlocalSignature(credentials.secret_key, sent, date, request.rawBody.toString('utf8'));
  if (!sameSignature(signature, expected)) return 'the signature does not match';
  const at = Date.parse(date);
  if (!Number.isFinite(at)) return 'the X-Date header is not a date';
  if (at < now - DLOCAL_NOTIFICATION_MAX_AGE_MS || at > now + FUTURE_SKEW_MS)
    return 'the notification was signed outside the accepted window';
  return null;
}

function action(
  kind: InboundWebhookActionKind,
  paymentId: string,
  referenceId: string | null,
  n: DlocalNotification,
): InboundWebhookAction {
  const currency = typeof n.currency === 'string' ? n.currency : null;
  return {
    kind,
    providerTransactionId: paymentId,
    providerReferenceId: referenceId,
    amount: currency ? fromDlocalAmount(n.amount, currency) : null,
    currency,
    rawResponseCode: n.status_code === undefined ? (n.status ?? null) : String(n.status_code),
    rawResponseDescription: n.status_detail ?? null,
  };
}

/** A payment's or a refund's notification as actions; a status that is not final yet (PENDING) asks for none. */
function actionsOf(n: DlocalNotification): InboundWebhookAction[] {
  if (n.payment_id) {
    const state = refundStateOf(n.status);
    if (state === 'processing') return [];
    return [action(state === 'succeeded' ? 'refund_succeeded' : 'refund_failed', n.payment_id, n.id ?? null, n)];
  }
  const state = paymentStateOf(n.status);
  if (state === 'waiting') return [];
  if (state === 'paid') return [action('capture_succeeded', n.id!, null, n)];
  // The same error code as `sync` gives a payment that ended unpaid.
  return [{ ...action('authorization_failed', n.id!, null, n), errorCode: UNPAID_CODE[state] }];
}

export function parseDlocalWebhook(
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
  now = Date.now(),
): InboundWebhookOutcome {
  const reason = refusal(credentials, request, now);
  if (reason) return { status: 'rejected', reason };
  let body: DlocalNotification;
  try {
    body = JSON.parse(request.rawBody.toString('utf8')) as DlocalNotification;
  } catch {
    return { status: 'rejected', reason: 'the body is not JSON' };
  }
  if (!body || typeof body.id !== 'string' || typeof body.status !== 'string')
    return { status: 'rejected', reason: 'the notification names no payment or refund and status' };
  let actions: InboundWebhookAction[];
  try {
    actions = actionsOf(body);
  } catch {
    // A status this version does not know: accepted without actions; reconciliation reads it later.
    actions = [];
  }
  const kind = body.payment_id ? 'refund' : 'payment';
  return { status: 'accepted', events: [{ eventId: `dlocal:${kind}:${body.id}:${body.status}`, actions }] };
}
