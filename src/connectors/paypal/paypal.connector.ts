import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  CaptureRules,
  PaymentConnector,
  PayoutOutcome,
  PayoutRequest,
  PayoutSyncOutcome,
  PayoutSyncRequest,
  RefundOutcome,
  RefundRequest,
  SyncOutcome,
  SyncRequest,
  VerifyOutcome,
  VoidOutcome,
  VoidRequest,
} from '../connector.ts';
import type { InboundWebhookOutcome, InboundWebhookRequest } from '../connector-webhooks.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { PaypalClient } from './paypal.client.ts';
import { PAYPAL_DEFINITION } from './paypal.definition.ts';
import { capture, refund, syncFollowUp, voidAuthorization } from './paypal.follow-ups.ts';
import { createOrder, syncAuthorization } from './paypal.payments.ts';
import { payoutToAccount, syncPayoutOf } from './paypal.payouts.ts';
import { verifyPaypal } from './paypal.verify.ts';
import { parsePaypalWebhook } from './paypal.webhooks.ts';

/**
 * PayPal Checkout through PayPal's REST API (Orders v2, Payments v2, webhook verification), over
 * the SSRF-checked relay (provider-http.ts). A payment is an order the buyer approves on PayPal's
 * page (`buyer_approval_pending`); when the buyer is back at `/connector-returns/...`, or
 * reconciliation asks, the approved order is authorized (or captured, intent capture). The order id
 * is the transaction's id at PayPal; captures, voids and refunds act on its authorization and
 * captures. Every POST carries the attempt id as PayPal-Request-Id. Payouts go to PayPal accounts
 * stored by earlier PayPal payments (Payouts API), never to cards.
 */
export class PaypalConnector implements PaymentConnector {
  readonly definition = PAYPAL_DEFINITION;
  private readonly client: PaypalClient;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new PaypalClient(options);
  }

  captureRules(): CaptureRules {
    // Multiple captures with final_capture false are part of every PayPal authorization.
    return { multiCapture: true, incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyPaypal(this.client, credentials);
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    return createOrder(this.client, request);
  }

  capture(request: CaptureRequest): Promise<CaptureOutcome> {
    return capture(this.client, request);
  }

  void(request: VoidRequest): Promise<VoidOutcome> {
    return voidAuthorization(this.client, request);
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return refund(this.client, request);
  }

  /** The order (authorize: completed here once approved), or a capture, void or refund by its id or attempt id. */
  sync(request: SyncRequest): Promise<SyncOutcome> {
    return request.operation === 'authorize'
      ? syncAuthorization(this.client, request)
      : syncFollowUp(this.client, request);
  }

  /** A payout to a stored PayPal account (Payouts API; paypal.payouts.ts): pending until PayPal pays the item. */
  payout(request: PayoutRequest): Promise<PayoutOutcome> {
    return payoutToAccount(this.client, request);
  }

  syncPayout(request: PayoutSyncRequest): Promise<PayoutSyncOutcome> {
    return syncPayoutOf(this.client, request);
  }

  /** Verified by PayPal (verify-webhook-signature with the service's `webhook_id`), then mapped (paypal.webhooks.ts). */
  parseWebhook = (
    credentials: Record<string, string>,
    request: InboundWebhookRequest,
  ): Promise<InboundWebhookOutcome> => parsePaypalWebhook(this.client, credentials, request);
}
