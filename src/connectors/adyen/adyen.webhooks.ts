import { createHmac, timingSafeEqual } from 'node:crypto';
import { isCurrency } from '../../lib/currencies.ts';
import type {
  InboundWebhookAction,
  InboundWebhookActionKind,
  InboundWebhookOutcome,
  InboundWebhookRequest,
} from '../connector-webhooks.ts';
import { fromAdyenValue } from './adyen.amounts.ts';
import { settlementBatchOf } from './adyen.reports.ts';

/**
 * Adyen's standard webhooks (`notificationItems[].NotificationRequestItem`). Each item carries an
 * HMAC-SHA256 (`additionalData.hmacSignature`, base64) of
 * `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`
 * under the webhook's hex HMAC key. Every item of a batch must check out, else the whole request
 * is rejected; so must its merchant account. Each item is an event of its own (`eventIdOf`).
 */

export interface AdyenNotificationItem {
  additionalData?: Record<string, string | undefined>;
  amount?: { value?: number; currency?: string };
  eventCode?: string;
  merchantAccountCode?: string;
  merchantReference?: string;
  originalReference?: string;
  pspReference?: string;
  reason?: string;
  success?: string;
}

/** The string Adyen signs for one item (missing fields are empty). */
export function adyenSigningString(item: AdyenNotificationItem): string {
  return [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    item.amount?.value,
    item.amount?.currency,
    item.eventCode,
    item.success,
  ]
    .map((part) => (part === undefined || part === null ? '' : String(part)))
    .join(':');
}

/** The base64 HMAC of an item under the hex key (how Adyen signs; tests sign with it too). */
export function adyenItemSignature(item: AdyenNotificationItem, hexKey: string): string {
  return createHmac('sha256', Buffer.from(hexKey, 'hex')).update(adyenSigningString(item), 'utf8').digest('base64');
}

function signatureMatches(item: AdyenNotificationItem, hexKey: string): boolean {
  const given = Buffer.from(item.additionalData?.hmacSignature ?? '', 'base64');
  const expected = Buffer.from(adyenItemSignature(item, hexKey), 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Adyen event code (and success flag) → our action kind; null: nothing for the engine to do. */
function kindOf(item: AdyenNotificationItem): InboundWebhookActionKind | null {
  const ok = item.success === 'true';
  switch (item.eventCode) {
    case 'AUTHORISATION':
      return ok ? 'authorization_succeeded' : 'authorization_failed';
    case 'CAPTURE':
      return ok ? 'capture_succeeded' : 'capture_failed';
    case 'CAPTURE_FAILED':
      return 'capture_failed';
    case 'CANCELLATION':
      return ok ? 'void_succeeded' : null;
    case 'CANCEL_OR_REFUND':
      if (!ok) return null;
      return item.additionalData?.['modification.action'] === 'refund' ? 'refund_succeeded' : 'void_succeeded';
    case 'REFUND':
      return ok ? 'refund_succeeded' : 'refund_failed';
    case 'REFUND_FAILED':
    case 'REFUNDED_REVERSED':
      return 'refund_failed';
    case 'NOTIFICATION_OF_CHARGEBACK':
    case 'CHARGEBACK':
      return 'chargeback_opened';
    case 'CHARGEBACK_REVERSED':
    case 'PREARBITRATION_WON':
      return 'chargeback_won';
    case 'SECOND_CHARGEBACK':
    case 'PREARBITRATION_LOST':
      return 'chargeback_lost';
    default:
      return null;
  }
}

/**
 * REPORT_AVAILABLE names the file in `pspReference` and its download URL in `reason`. Only a
 * Settlement details report is acted on (the connector's `settlements` fetches it from the URL,
 * which it checks against the merchant account's report folder); other reports change nothing.
 * The file name is signed, the URL is not: a URL that names another file is replaced by the name.
 */
function reportActionOf(item: AdyenNotificationItem): InboundWebhookAction | null {
  if (item.success !== 'true' || !item.pspReference || settlementBatchOf(item.pspReference) === null) return null;
  // `reason` is not among the signed fields: the URL is passed on only when it names the signed file.
  const url = item.reason?.endsWith(`/${item.pspReference}`) ? item.reason : null;
  return {
    kind: 'settlement_report_available',
    providerTransactionId: '',
    providerReferenceId: url ?? item.pspReference,
    amount: null,
    currency: null,
    rawResponseCode: null,
    rawResponseDescription: null,
  };
}

function actionOf(item: AdyenNotificationItem): InboundWebhookAction | null {
  if (item.eventCode === 'REPORT_AVAILABLE') return reportActionOf(item);
  const kind = kindOf(item);
  if (!kind || !item.pspReference) return null;
  // Modifications and disputes name the payment in originalReference and themselves in pspReference.
  const onPayment = kind === 'authorization_succeeded' || kind === 'authorization_failed';
  const currency = item.amount?.currency && isCurrency(item.amount.currency) ? item.amount.currency : null;
  return {
    kind,
    providerTransactionId: onPayment ? item.pspReference : (item.originalReference ?? item.pspReference),
    providerReferenceId: onPayment ? null : item.pspReference,
    amount: currency && typeof item.amount?.value === 'number' ? fromAdyenValue(item.amount.value, currency) : null,
    currency,
    rawResponseCode: item.success === 'true' ? null : (item.eventCode ?? null),
    rawResponseDescription: item.reason || null,
    // Signed: a redirect payment (iDEAL) has no pspReference of ours until the buyer comes back.
    reference: onPayment ? item.merchantReference || null : null,
  };
}

/**
 * Adyen sends no event id. Its documented key of a notification item is the event code with the
 * PSP reference, and the success flag (a later outcome of the same event is a new item). Each item
 * of a batch is its own event, so an item Adyen resends inside a later batch is dropped while the
 * batch's new items apply. Only signed fields enter the key: `eventDate` is not signed, and a key
 * holding it would let a replayed item through with a new date.
 */
function eventIdOf(item: AdyenNotificationItem): string {
  return `adyen:${item.eventCode ?? ''}:${item.pspReference ?? ''}:${item.success ?? ''}`;
}

function itemsOf(rawBody: Buffer): AdyenNotificationItem[] | null {
  try {
    const body = JSON.parse(rawBody.toString('utf8')) as {
      notificationItems?: Array<{ NotificationRequestItem?: AdyenNotificationItem }>;
    };
    const items = (body.notificationItems ?? [])
      .map((entry) => entry.NotificationRequestItem)
      .filter((item): item is AdyenNotificationItem => Boolean(item));
    return items.length > 0 ? items : null;
  } catch {
    return null;
  }
}

export function parseAdyenWebhook(
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
): InboundWebhookOutcome {
  const hexKey = credentials.hmac_key;
  if (!hexKey || !/^([0-9a-fA-F]{2})+$/.test(hexKey))
    return {
      status: 'rejected',
      reason: 'The payment service has no Adyen HMAC key (hmac_key) to verify webhooks with',
    };
  const items = itemsOf(request.rawBody);
  if (!items) return { status: 'rejected', reason: 'The body is not an Adyen notification (notificationItems)' };
  if (!items.every((item) => signatureMatches(item, hexKey)))
    return { status: 'rejected', reason: 'An item of the notification has no valid HMAC signature' };
  if (!items.every((item) => item.merchantAccountCode === credentials.merchant_account))
    return { status: 'rejected', reason: 'The notification is for another Adyen merchant account' };
  return {
    status: 'accepted',
    events: items.map((item) => ({
      eventId: eventIdOf(item),
      actions: [actionOf(item)].filter((a): a is InboundWebhookAction => a !== null),
    })),
  };
}
