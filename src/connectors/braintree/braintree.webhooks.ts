import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { isCurrency } from '../../lib/currencies.ts';
import type {
  InboundWebhookAction,
  InboundWebhookActionKind,
  InboundWebhookOutcome,
  InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { fromBraintreeAmount } from './braintree.amounts.ts';
import { child, parseXml, textOf, type XmlElement } from './braintree.xml.ts';

/**
 * Braintree webhooks: a form post of `bt_signature` (`<public key>|<hex HMAC-SHA1>` pairs joined by
 * `&`) and `bt_payload` (base64 XML). The HMAC key is the SHA-1 digest of the private key. The
 * notification's transaction and dispute ids are Braintree's legacy ids; the GraphQL API (our
 * `payment_service_transaction_id`) names a transaction `base64("transaction_" + legacy id)`.
 */

/**
 * How old a notification's signed timestamp may be: Braintree resends an unanswered notification
 * every hour for up to 24 hours in production, unchanged, so a genuine retry is up to 24 hours
 * old; an hour more covers its delivery. A replay inside this window is dropped by its event id
 * (kept for INBOUND_WEBHOOK_RETENTION_DAYS, far longer); an older one is rejected here.
 */
export const BRAINTREE_WEBHOOK_MAX_AGE_SECONDS = 25 * 3600;
/** How far ahead of our clock a timestamp may be (clock skew), as Stripe's tolerance allows. */
export const BRAINTREE_WEBHOOK_MAX_SKEW_SECONDS = 300;
/** `2026-11-25T12:00:00Z`, with optional fractions and a numeric offset. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** Why a notification's timestamp does not check out at `now` (milliseconds); null when it does. */
function timestampProblem(notification: XmlElement, now: number): string | null {
  const text = textOf(notification, 'timestamp');
  const at = text && TIMESTAMP.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(at)) return 'The notification has no valid timestamp';
  if (now - at > BRAINTREE_WEBHOOK_MAX_AGE_SECONDS * 1000)
    return `The notification's timestamp is older than Braintree retries for (${BRAINTREE_WEBHOOK_MAX_AGE_SECONDS / 3600} hours)`;
  if (at - now > BRAINTREE_WEBHOOK_MAX_SKEW_SECONDS * 1000) return "The notification's timestamp is in the future";
  return null;
}

/** The GraphQL id of a legacy transaction id. */
export const graphQlIdOf = (legacyId: string) =>
  Buffer.from(`transaction_${legacyId}`, 'utf8').toString('base64').replace(/=+$/, '');

/** HMAC-SHA1 of the payload under SHA1(private key), hex (how Braintree signs; tests sign with it too). */
export function braintreeSignature(payload: string, privateKey: string): string {
  const key = createHash('sha1').update(privateKey, 'utf8').digest();
  return createHmac('sha1', key).update(payload, 'utf8').digest('hex');
}

function signed(signature: string, payload: string, credentials: Record<string, string>): boolean {
  const pair = signature
    .split('&')
    .map((p) => p.split('|'))
    .find(([key]) => key === credentials.public_key);
  if (!pair?.[1] || !credentials.private_key) return false;
  const given = Buffer.from(pair[1], 'hex');
  // Braintree's own libraries also accept the signature of the payload with a trailing newline.
  return [payload, `${payload}\n`].some((candidate) => {
    const expected = Buffer.from(braintreeSignature(candidate, credentials.private_key!), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

function money(value: string | null, currency: string | null): { amount: number | null; currency: string | null } {
  const code = currency && isCurrency(currency) ? currency : null;
  return { amount: code && value ? fromBraintreeAmount(value, code) : null, currency: code };
}

function transactionAction(kind: string, transaction: XmlElement): InboundWebhookAction | null {
  const id = textOf(transaction, 'id');
  if (!id) return null;
  const credit = textOf(transaction, 'type') === 'credit';
  const refunded = textOf(transaction, 'refunded-transaction-id');
  const settled = kind === 'transaction_settled';
  const actionKind: InboundWebhookActionKind = credit
    ? settled
      ? 'refund_succeeded'
      : 'refund_failed'
    : settled
      ? 'capture_succeeded'
      : 'capture_failed';
  return {
    kind: actionKind,
    providerTransactionId: graphQlIdOf(credit && refunded ? refunded : id),
    providerReferenceId: credit ? graphQlIdOf(id) : null,
    ...money(textOf(transaction, 'amount'), textOf(transaction, 'currency-iso-code')),
    rawResponseCode: settled
      ? null
      : (textOf(transaction, 'processor-settlement-response-code') ?? 'settlement_declined'),
    rawResponseDescription: settled ? null : textOf(transaction, 'processor-settlement-response-text'),
  };
}

/**
 * Every dispute notification Braintree sends (the SDKs' WebhookNotification kinds). Opened: the
 * disputed amount is debited. Won: it is credited back. Lost, accepted (by the merchant),
 * auto-accepted (by Braintree, e.g. under its chargeback protection) and expired (no answer before
 * the reply-by date): the cardholder keeps it. Disputed (the merchant's evidence was sent) and
 * under review move no money and change nothing of ours: no action.
 */
const DISPUTE_KINDS = {
  dispute_opened: 'chargeback_opened',
  dispute_won: 'chargeback_won',
  dispute_lost: 'chargeback_lost',
  dispute_accepted: 'chargeback_lost',
  dispute_auto_accepted: 'chargeback_lost',
  dispute_expired: 'chargeback_lost',
  dispute_disputed: null,
  dispute_under_review: null,
} as const satisfies Record<string, InboundWebhookActionKind | null>;

const disputeKindOf = (kind: string): InboundWebhookActionKind | null =>
  Object.hasOwn(DISPUTE_KINDS, kind) ? DISPUTE_KINDS[kind as keyof typeof DISPUTE_KINDS] : null;

function disputeAction(kind: InboundWebhookActionKind, dispute: XmlElement): InboundWebhookAction | null {
  const transactionId = textOf(child(dispute, 'transaction'), 'id');
  if (!transactionId) return null;
  return {
    kind,
    providerTransactionId: graphQlIdOf(transactionId),
    providerReferenceId: textOf(dispute, 'id'),
    ...money(textOf(dispute, 'amount-disputed') ?? textOf(dispute, 'amount'), textOf(dispute, 'currency-iso-code')),
    rawResponseCode: textOf(dispute, 'reason-code') ?? textOf(dispute, 'status'),
    rawResponseDescription: textOf(dispute, 'reason'),
  };
}

/** Notification kind → actions; kinds that change nothing of ours (check, subscriptions, ...) have none. */
function actionsOf(notification: XmlElement): InboundWebhookAction[] {
  const kind = textOf(notification, 'kind') ?? '';
  const subject = child(notification, 'subject');
  let action: InboundWebhookAction | null = null;
  if (kind === 'transaction_settled' || kind === 'transaction_settlement_declined') {
    const transaction = child(subject, 'transaction');
    action = transaction ? transactionAction(kind, transaction) : null;
  } else if (disputeKindOf(kind)) {
    const dispute = child(subject, 'dispute');
    action = dispute ? disputeAction(disputeKindOf(kind)!, dispute) : null;
  }
  return action ? [action] : [];
}

export function parseBraintreeWebhook(
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
  now: () => number = Date.now,
): InboundWebhookOutcome {
  const form = new URLSearchParams(request.rawBody.toString('utf8'));
  const signature = form.get('bt_signature');
  const payload = form.get('bt_payload');
  if (!signature || !payload) return { status: 'rejected', reason: 'The body has no bt_signature and bt_payload' };
  if (/[^A-Za-z0-9+=/\n]/.test(payload)) return { status: 'rejected', reason: 'bt_payload is not base64' };
  if (!signed(signature, payload, credentials))
    return { status: 'rejected', reason: "bt_signature does not match this payment service's public and private keys" };
  const notification = parseXml(Buffer.from(payload, 'base64').toString('utf8'));
  if (!notification || notification.name !== 'notification')
    return { status: 'rejected', reason: 'bt_payload is not a Braintree notification' };
  const stale = timestampProblem(notification, now());
  if (stale) return { status: 'rejected', reason: stale };
  // Braintree sends no event id: the signed payload (with its timestamp) identifies the event.
  const eventId = `braintree:${createHash('sha256').update(payload.replace(/\n/g, '')).digest('hex')}`;
  return { status: 'accepted', events: [{ eventId, actions: actionsOf(notification) }] };
}
