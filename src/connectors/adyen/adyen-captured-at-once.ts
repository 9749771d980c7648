import {
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRules,
  type ConnectorDefinition,
  ConnectorError,
  type PaymentConnector,
  type RefundOutcome,
  type RefundRequest,
  type SyncOutcome,
  type SyncRequest,
  type VerifyOutcome,
  type VoidOutcome,
} from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { AdyenClient } from './adyen.client.ts';
import { refundBody, refundPayment, resendModification } from './adyen.refunds.ts';
import { verifyAdyen } from './adyen.sync.ts';
import { parseAdyenWebhook } from './adyen.webhooks.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/**
 * What Adyen's methods captured when the buyer pays (iDEAL, SEPA Direct Debit) share: the client,
 * webhooks and credential check of the card connector, no capture and no void (each refused with
 * the method's own words), refunds as Adyen modifications re-sent with their key by `sync`. A
 * subclass says how a payment is made and how its authorization is asked again.
 */
export abstract class AdyenCapturedAtOnceConnector implements PaymentConnector {
  abstract readonly definition: ConnectorDefinition;
  protected readonly client: AdyenClient;
  readonly parseWebhook = parseAdyenWebhook;

  constructor(
    options: ProviderConnectorOptions,
    private readonly refusals: { capture: string; void: string },
  ) {
    this.client = new AdyenClient(options);
  }

  abstract authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome>;

  /** The authorization asked again (the buyer's return, or a lost answer found by its key). */
  protected abstract syncAuthorization(request: SyncRequest): Promise<SyncOutcome>;

  captureRules(): CaptureRules {
    return { multiCapture: false, incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyAdyen(this.client, credentials);
  }

  capture(): Promise<CaptureOutcome> {
    throw new ConnectorError('invalid_request', this.refusals.capture);
  }

  void(): Promise<VoidOutcome> {
    throw new ConnectorError('invalid_request', this.refusals.void);
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return refundPayment(this.client, request, refundBody(request));
  }

  async sync(request: SyncRequest): Promise<SyncOutcome> {
    if (request.operation === 'authorize') return this.syncAuthorization(request);
    if (request.operation !== 'refund') return { ...blank, status: 'not_found', providerTransactionId: null };
    return resendModification(this.client, request, 'refunds', refundBody(request));
  }
}
