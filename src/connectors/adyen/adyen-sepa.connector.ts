import {
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRules,
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
import { hostedSessionBody, openHostedSession, syncOfHostedSession } from './adyen.sessions.ts';
import { verifyAdyen } from './adyen.sync.ts';
import { parseAdyenWebhook } from './adyen.webhooks.ts';
import { ADYEN_SEPA_DEFINITION } from './adyen-sepa.definition.ts';
import { sepaOptionsBody } from './adyen-sepa.options.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/**
 * SEPA Direct Debit through Adyen's Hosted Checkout (`adyen.sessions.ts`): the session's page is
 * the transaction's `approval_url`, where the buyer gives the account holder and IBAN; the buyer's
 * return (`sessionResult`) or Adyen's AUTHORISATION webhook completes the payment, captured at once
 * (`captureDelayHours: 0`). A debit that fails later (returned by the buyer's bank, charged back)
 * arrives as Adyen's CHARGEBACK webhook: the transaction becomes disputed. Refunds are Adyen
 * modifications; a SEPA payment cannot be cancelled once authorised (nothing is held).
 */
export class AdyenSepaConnector implements PaymentConnector {
  readonly definition = ADYEN_SEPA_DEFINITION;
  private readonly client: AdyenClient;
  readonly parseWebhook = parseAdyenWebhook;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new AdyenClient(options);
  }

  captureRules(): CaptureRules {
    return { multiCapture: false, incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyAdyen(this.client, credentials);
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'sepa')
      throw new ConnectorError('invalid_request', 'adyen-sepa takes SEPA redirect payments only');
    if (request.intent !== 'capture')
      throw new ConnectorError(
        'invalid_request',
        'SEPA Direct Debit through Adyen is captured at once: send intent capture',
      );
    if (request.currency !== 'EUR') throw new ConnectorError('invalid_request', 'SEPA Direct Debit takes EUR only');
    const body = hostedSessionBody(request, 'sepadirectdebit', {
      captureDelayHours: 0,
      ...sepaOptionsBody(request.options, request.reference),
    });
    return openHostedSession(this.client, request, body);
  }

  capture(): Promise<CaptureOutcome> {
    throw new ConnectorError('invalid_request', 'SEPA Direct Debit payments are captured when the buyer pays');
  }

  void(): Promise<VoidOutcome> {
    throw new ConnectorError('invalid_request', 'An authorised SEPA Direct Debit cannot be cancelled: refund it');
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return refundPayment(this.client, request, refundBody(request));
  }

  /** The session's result on the buyer's return (or its creation asked again); a refund re-sent with its key. */
  async sync(request: SyncRequest): Promise<SyncOutcome> {
    if (request.operation === 'authorize') return syncOfHostedSession(this.client, request, 'captured');
    if (request.operation !== 'refund') return { ...blank, status: 'not_found', providerTransactionId: null };
    return resendModification(this.client, request, 'refunds', refundBody(request));
  }
}
