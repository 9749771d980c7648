import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRules,
  type PaymentConnector,
  type RefundOutcome,
  type RefundRequest,
  type SyncOutcome,
  type SyncRequest,
  type VerifyOutcome,
  type VoidOutcome,
} from '../connector.ts';
import type { InboundWebhookOutcome, InboundWebhookRequest } from '../connector-webhooks.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { DlocalClient } from './dlocal.client.ts';
import { DLOCAL_PIX_DEFINITION } from './dlocal.definition.ts';
import { createPayment, syncPayment } from './dlocal.payments.ts';
import { refund, syncRefund } from './dlocal.refunds.ts';
import { verifyDlocal } from './dlocal.verify.ts';
import { parseDlocalWebhook } from './dlocal.webhooks.ts';

/**
 * PIX in Brazil through dLocal's Payins API (REST with dLocal's V2-HMAC-SHA256 request signature,
 * over the SSRF-checked relay). A payment is `buyer_approval_pending` with its PIX code until the
 * buyer pays it; dLocal's signed notification (or `sync`) then makes it `capture_succeeded`. PIX is
 * a sale: there is no authorization to capture or void. Refunds are asynchronous.
 */
export class DlocalPixConnector implements PaymentConnector {
  readonly definition = DLOCAL_PIX_DEFINITION;
  private readonly client: DlocalClient;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new DlocalClient(options);
  }

  captureRules(): CaptureRules {
    return { multiCapture: false, incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyDlocal(this.client, credentials);
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    return createPayment(this.client, request);
  }

  /** PIX pays in one step: nothing is ever held to capture (the capability is off). */
  capture(): Promise<CaptureOutcome> {
    return Promise.reject(new ConnectorError('invalid_request', 'A PIX payment is captured when the buyer pays it'));
  }

  /** Nothing is held, so nothing to void; a paid PIX payment is refunded. */
  void(): Promise<VoidOutcome> {
    return Promise.reject(new ConnectorError('invalid_request', 'A PIX payment cannot be voided; refund it'));
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return refund(this.client, request);
  }

  sync(request: SyncRequest): Promise<SyncOutcome> {
    if (request.operation === 'authorize') return syncPayment(this.client, request);
    if (request.operation === 'refund') return syncRefund(this.client, request);
    return Promise.reject(new ConnectorError('invalid_request', `dLocal PIX has no ${request.operation} to sync`));
  }

  parseWebhook = (credentials: Record<string, string>, request: InboundWebhookRequest): InboundWebhookOutcome =>
    parseDlocalWebhook(credentials, request);
}
