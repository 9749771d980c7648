import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  CaptureRules,
  PaymentConnector,
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
import { GoCardlessClient } from './gocardless.client.ts';
import { GOCARDLESS_DEFINITION } from './gocardless.definition.ts';
import { capture, refund, syncFollowUp, voidMandate } from './gocardless.follow-ups.ts';
import { createBillingRequest, syncAuthorization } from './gocardless.payments.ts';
import { verifyGoCardless } from './gocardless.verify.ts';
import { parseGoCardlessWebhook } from './gocardless.webhooks.ts';

/**
 * Direct debit through GoCardless's API (Billing Requests, mandates, payments, refunds), over the
 * SSRF-checked relay (provider-http.ts). The payer sets up a mandate on GoCardless's page
 * (`buyer_approval_pending`); when they are back at `/connector-returns/...`, or reconciliation
 * asks, the mandate is the authorization, and a payment against it the capture (intent capture:
 * made at once). Collections and refunds are decided days later and reported by webhook.
 */
export class GoCardlessConnector implements PaymentConnector {
  readonly definition = GOCARDLESS_DEFINITION;
  private readonly client: GoCardlessClient;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new GoCardlessClient(options);
  }

  captureRules(): CaptureRules {
    return { multiCapture: false, incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyGoCardless(this.client, credentials);
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    return createBillingRequest(this.client, request);
  }

  capture(request: CaptureRequest): Promise<CaptureOutcome> {
    return capture(this.client, request);
  }

  void(request: VoidRequest): Promise<VoidOutcome> {
    return voidMandate(this.client, request);
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return refund(this.client, request);
  }

  /** The billing request (authorize), or a payment, refund or the mandate by its id or attempt id. */
  sync(request: SyncRequest): Promise<SyncOutcome> {
    return request.operation === 'authorize'
      ? syncAuthorization(this.client, request)
      : syncFollowUp(this.client, request);
  }

  /** Signed by GoCardless (HMAC-SHA256 of the body with the endpoint secret), then mapped. */
  parseWebhook = (
    credentials: Record<string, string>,
    request: InboundWebhookRequest,
  ): Promise<InboundWebhookOutcome> => parseGoCardlessWebhook(this.client, credentials, request);
}
