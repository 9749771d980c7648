import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Inbound provider webhooks in the connector contract. A provider tells us about things that
 * happen after our call returned (a capture settled, a refund failed, a chargeback opened). The
 * connector only verifies the provider's signature and translates its event into a few normalized
 * actions; the engine finds the transaction, deduplicates each event by its `eventId` and applies each action
 * through the same state machine as our own calls.
 */

/** The raw HTTP request a provider sent to the payment service's webhook endpoint. */
export interface InboundWebhookRequest {
  /** Header names lower-cased. */
  headers: Record<string, string | undefined>;
  /** The body exactly as received: signatures are computed over these bytes. */
  rawBody: Buffer;
  /** The absolute URL the provider posted to (some providers sign it). */
  url: string;
}

/** What an inbound event asks the engine to do; one event may carry several (batched providers). */
export type InboundWebhookActionKind =
  | 'authorization_succeeded'
  | 'authorization_failed'
  | 'capture_succeeded'
  | 'capture_failed'
  | 'void_succeeded'
  | 'refund_succeeded'
  | 'refund_failed'
  | 'chargeback_opened'
  | 'chargeback_won'
  | 'chargeback_lost'
  /**
   * The provider published a settlement report (Adyen's REPORT_AVAILABLE): the engine enqueues the
   * payment service's settlement ingestion for it. `providerReferenceId`: the report (its download
   * URL or file name, as the connector's `settlements` takes it in `report`); `providerTransactionId` is ''.
   */
  | 'settlement_report_available'
  /**
   * A payout's final outcome at the provider (PayPal's PAYMENT.PAYOUTS-ITEM.* events):
   * `providerTransactionId` is the provider's payout id (`payment_service_payout_id`, '' when the
   * event does not name it), `providerReferenceId` the payout attempt's id (our idempotency key,
   * which the provider echoes), so a payout whose answer was lost is found too.
   */
  | 'payout_succeeded'
  | 'payout_declined'
  | 'payout_failed';

export interface InboundWebhookAction {
  kind: InboundWebhookActionKind;
  /** The provider's id of the payment the event is about (our `payment_service_transaction_id`). */
  providerTransactionId: string;
  /** The provider's id of the refund, capture or dispute, where the event names one. */
  providerReferenceId: string | null;
  /** Minor units of our API (already converted from the provider's units), when the event gives one. */
  amount: number | null;
  currency: string | null;
  rawResponseCode: string | null;
  rawResponseDescription: string | null;
  /**
   * Our transaction's reference (`AuthorizeRequest.reference`) as the provider signed it, on an
   * authorization event only: finds a transaction whose provider id is not known yet (a payment
   * made on the provider's page, an answer lost). Absent: the provider id alone.
   */
  transactionReference?: string | null;
  /**
   * The standardized `error_code` of a failure the event reports: a payout's (`payout_declined`,
   * `payout_failed`), or a payment's as the connector's `sync` would give it (a PIX dLocal
   * rejected: `do_not_honor`); absent or null: none.
   */
  errorCode?: string | null;
}

/**
 * One event of a request, deduplicated on its own: a provider that batches (Adyen) sends several,
 * and may resend one of them inside a later batch.
 */
export interface InboundWebhookEvent {
  /** The provider's own id of the event, or one the connector builds from signed fields only; used to drop replays. */
  eventId: string;
  actions: InboundWebhookAction[];
}

export type InboundWebhookOutcome =
  /** A genuine request: its events, each applied once by its `eventId`. */
  | { status: 'accepted'; events: InboundWebhookEvent[] }
  /** The signature, timestamp or credentials did not check out: answered 401, nothing changes. */
  | { status: 'rejected'; reason: string };

/**
 * The optional connector member `parseWebhook` (present when the provider sends webhooks): verifies
 * and maps one inbound request with the payment service's decrypted credentials. Never throws for a bad
 * signature (that is `rejected`); never touches the database. A provider that verifies its
 * signatures itself (PayPal's verify-webhook-signature call) answers asynchronously; the engine
 * awaits it before opening any database transaction.
 */
export type ParseInboundWebhook = (
  credentials: Record<string, string>,
  request: InboundWebhookRequest,
) => InboundWebhookOutcome | Promise<InboundWebhookOutcome>;

/**
 * Our inbound webhook address of a payment service (the route of `POST
 * /merchant-accounts/{id}/payment-services/{id}/webhooks`), for a provider that takes a
 * notification address with each request instead of one set in its dashboard (dLocal).
 */
export function inboundWebhookUrl(publicUrl: string, merchantAccountId: string, paymentServiceId: string): string {
  const base = publicUrl.endsWith('/') ? publicUrl.slice(0, -1) : publicUrl;
  return `${base}/merchant-accounts/${encodeURIComponent(merchantAccountId)}/payment-services/${encodeURIComponent(paymentServiceId)}/webhooks`;
}

/**
 * A signature that is the hex HMAC-SHA256 of the raw body (GoCardless `Webhook-Signature`,
 * Checkout.com `Cko-Signature`): `malformed` when it is not 64 hex characters, else whether it is
 * the body's HMAC under `secret`, compared in constant time.
 */
export function bodyHmacSha256Hex(
  secret: string,
  rawBody: Buffer,
  signature: string | undefined,
): 'malformed' | 'match' | 'mismatch' {
  // Hex decoding stops at the first non-hex character: 32 bytes from 64 characters means all were hex.
  const given = signature?.length === 64 ? Buffer.from(signature, 'hex') : null;
  if (given?.length !== 32) return 'malformed';
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, given) ? 'match' : 'mismatch';
}
