import type {
  InboundWebhookAction,
  InboundWebhookActionKind,
  InboundWebhookOutcome,
  InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { isCurrency } from '../../lib/currencies.ts';
import { fromStripeAmount } from './stripe.amounts.ts';
import { Stripe } from './stripe.client.ts';
import { REFUND_STATUS } from './stripe.mapping.ts';
import { inTable } from '../status-table.ts';

/**
 * Stripe's webhook events (https://docs.stripe.com/webhooks): the `Stripe-Signature` header is
 * checked with the endpoint's signing secret and a timestamp tolerance (the official package's
 * `constructEvent`, HMAC-SHA256 over `<t>.<raw body>`), then the event becomes our actions.
 * Events we do not act on are accepted with no action, so Stripe stops resending them.
 */

/** Stripe's default: an event signed more than 5 minutes ago is refused (replay protection). */
export const STRIPE_WEBHOOK_TOLERANCE_SECONDS = 300;

type Money = { amount: number | null; currency: string | null };

function moneyOf(amount: number | null | undefined, currency: string | null | undefined): Money {
  const code = currency?.toUpperCase() ?? null;
  if (amount === null || amount === undefined || !code || !isCurrency(code)) return { amount: null, currency: code };
  return { amount: fromStripeAmount(amount, code), currency: code };
}

const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

function action(
  kind: InboundWebhookActionKind,
  paymentIntent: string | null,
  reference: string | null,
  money: Money,
  raw: { code?: string | null; description?: string | null } = {},
): InboundWebhookAction[] {
  if (!paymentIntent) return [];
  return [
    {
      kind,
      providerTransactionId: paymentIntent,
      providerReferenceId: reference,
      ...money,
      rawResponseCode: raw.code ?? null,
      rawResponseDescription: raw.description ?? null,
    },
  ];
}

/**
 * A refund event's action, read through the same table as the refund's answer (REFUND_STATUS). A
 * refund still in progress, or in a status newer than the table, changes nothing: a webhook
 * never throws, and reconciliation asks Stripe for the refund's outcome.
 */
function refundActions(refund: Stripe.Refund): InboundWebhookAction[] {
  const money = moneyOf(refund.amount, refund.currency);
  const status = inTable(REFUND_STATUS, refund.status) ? REFUND_STATUS[refund.status] : null;
  if (status === 'succeeded') return action('refund_succeeded', idOf(refund.payment_intent), refund.id, money);
  if (status === 'failed')
    return action('refund_failed', idOf(refund.payment_intent), refund.id, money, {
      code: refund.failure_reason ?? refund.status,
      description: null,
    });
  return [];
}

function disputeActions(type: string, dispute: Stripe.Dispute): InboundWebhookAction[] {
  const money = moneyOf(dispute.amount, dispute.currency);
  const raw = { code: dispute.reason, description: dispute.status };
  if (type === 'charge.dispute.created')
    return action('chargeback_opened', idOf(dispute.payment_intent), dispute.id, money, raw);
  if (dispute.status === 'won') return action('chargeback_won', idOf(dispute.payment_intent), dispute.id, money, raw);
  if (dispute.status === 'lost') return action('chargeback_lost', idOf(dispute.payment_intent), dispute.id, money, raw);
  return [];
}

/** One verified event → our actions (exhaustive over the events this connector subscribes to). */
export function actionsOf(event: Stripe.Event): InboundWebhookAction[] {
  switch (event.type) {
    case 'payment_intent.amount_capturable_updated':
      return action(
        'authorization_succeeded',
        event.data.object.id,
        null,
        moneyOf(event.data.object.amount, event.data.object.currency),
      );
    case 'payment_intent.succeeded':
      return action(
        'capture_succeeded',
        event.data.object.id,
        idOf(event.data.object.latest_charge),
        moneyOf(event.data.object.amount_received, event.data.object.currency),
      );
    case 'payment_intent.payment_failed': {
      const error = event.data.object.last_payment_error;
      return action(
        'authorization_failed',
        event.data.object.id,
        null,
        moneyOf(event.data.object.amount, event.data.object.currency),
        { code: error?.decline_code ?? error?.code ?? null, description: error?.message ?? null },
      );
    }
    case 'payment_intent.canceled':
      return action(
        'void_succeeded',
        event.data.object.id,
        null,
        moneyOf(event.data.object.amount, event.data.object.currency),
      );
    case 'refund.updated':
    case 'refund.failed':
      return refundActions(event.data.object);
    case 'charge.dispute.created':
    case 'charge.dispute.closed':
      return disputeActions(event.type, event.data.object);
    case 'payout.paid':
      // An automatic payout reached the bank: its balance transactions are the report to ingest (stripe.settlements.ts).
      if (!event.data.object.automatic) return [];
      return [
        {
          kind: 'settlement_report_available',
          providerTransactionId: '',
          providerReferenceId: event.data.object.id,
          ...moneyOf(event.data.object.amount, event.data.object.currency),
          rawResponseCode: null,
          rawResponseDescription: null,
        },
      ];
    default:
      return [];
  }
}

/** `parseWebhook` of stripe-card: verify with `webhook_signing_secret`, then map. Never throws. */
export function parseStripeWebhook(
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
  now: () => number = Date.now,
): InboundWebhookOutcome {
  const secret = credentials.webhook_signing_secret;
  if (!secret) return { status: 'rejected', reason: 'the payment service has no webhook_signing_secret' };
  const header = request.headers['stripe-signature'];
  if (!header) return { status: 'rejected', reason: 'the Stripe-Signature header is missing' };
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(
      request.rawBody,
      header,
      secret,
      STRIPE_WEBHOOK_TOLERANCE_SECONDS,
      undefined,
      now(),
    );
  } catch (error) {
    // The package's message says which check failed (no signature match, outside the tolerance); it holds no secret.
    return {
      status: 'rejected',
      reason:
        error instanceof Stripe.errors.StripeSignatureVerificationError
          ? error.message.split('\n')[0]!
          : 'the event could not be read',
    };
  }
  return { status: 'accepted', events: [{ eventId: event.id, actions: actionsOf(event) }] };
}
