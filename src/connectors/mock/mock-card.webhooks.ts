import { createHmac, timingSafeEqual } from 'node:crypto';
import type {
  InboundWebhookAction,
  InboundWebhookActionKind,
  InboundWebhookOutcome,
  InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { isCurrency } from '../../lib/currencies.ts';

/**
 * The sandbox processor's webhooks, so the inbound path can be exercised without a real provider
 * (docs/sandbox.md, "Provider webhooks"). The payment service's `webhook_secret` signs
 * `<t>.<raw body>` with HMAC-SHA256, sent as `X-Mock-Signature: t=<unix seconds>,v1=<hex>`;
 * a signature older than 5 minutes is refused. The body is one event:
 * `{"id", "type": "<kind with a dot>", "transaction_id", "reference_id"?, "amount"?, "currency"?}`
 * where `type` is one of our action kinds written `capture.succeeded`, `chargeback.opened`, ...
 */

export const MOCK_WEBHOOK_HEADER = 'x-mock-signature';
export const MOCK_WEBHOOK_TOLERANCE_SECONDS = 300;

const KINDS = new Set<InboundWebhookActionKind>([
  'authorization_succeeded',
  'authorization_failed',
  'capture_succeeded',
  'capture_failed',
  'void_succeeded',
  'refund_succeeded',
  'refund_failed',
  'chargeback_opened',
  'chargeback_won',
  'chargeback_lost',
]);

/** The signature header of a body (tests and docs/sandbox.md's example sign this way). */
export function signMockWebhook(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

function signatureProblem(secret: string, header: string | undefined, body: Buffer, nowSeconds: number): string | null {
  if (!header) return `the ${MOCK_WEBHOOK_HEADER} header is missing`;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1) return `the ${MOCK_WEBHOOK_HEADER} header is not t=<seconds>,v1=<hex>`;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  const given = Buffer.from(parts.v1, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return 'the signature does not match the body';
  if (Math.abs(nowSeconds - t) > MOCK_WEBHOOK_TOLERANCE_SECONDS)
    return 'the signature timestamp is outside the 5 minute tolerance';
  return null;
}

function actionOf(event: Record<string, unknown>): InboundWebhookAction | null {
  const kind = String(event.type ?? '').replace('.', '_') as InboundWebhookActionKind;
  if (!KINDS.has(kind) || typeof event.transaction_id !== 'string') return null;
  const currency = typeof event.currency === 'string' && isCurrency(event.currency) ? event.currency : null;
  const amount = Number.isSafeInteger(event.amount) ? (event.amount as number) : null;
  return {
    kind,
    providerTransactionId: event.transaction_id,
    providerReferenceId: typeof event.reference_id === 'string' ? event.reference_id : null,
    amount,
    currency,
    rawResponseCode: null,
    rawResponseDescription: null,
  };
}

/** `parseWebhook` of mock-card. */
export function parseMockCardWebhook(
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
  now: () => number = Date.now,
): InboundWebhookOutcome {
  const secret = credentials.webhook_secret;
  if (!secret) return { status: 'rejected', reason: 'the payment service has no webhook_secret' };
  const problem = signatureProblem(
    secret,
    request.headers[MOCK_WEBHOOK_HEADER],
    request.rawBody,
    Math.floor(now() / 1000),
  );
  if (problem) return { status: 'rejected', reason: problem };
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(request.rawBody.toString('utf8')) as Record<string, unknown>;
  } catch {
    return { status: 'rejected', reason: 'the body is not JSON' };
  }
  if (typeof event.id !== 'string' || event.id.length === 0 || event.id.length > 255)
    return { status: 'rejected', reason: 'the event has no id' };
  const action = actionOf(event);
  return { status: 'accepted', events: [{ eventId: event.id, actions: action ? [action] : [] }] };
}
