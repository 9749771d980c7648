import {
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRequest,
  type CaptureRules,
  ConnectorError,
  type PaymentConnector,
  type RefundOutcome,
  type RefundRequest,
  type SyncOutcome,
  type SyncRequest,
  type VerifyOutcome,
  type VoidOutcome,
  type VoidRequest,
} from '../connector.ts';
import { inTable } from '../status-table.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { authorizationOf, bodyOf, type AdyenPaymentResponse } from './adyen.answers.ts';
import { AdyenClient } from './adyen.client.ts';
import { modificationLineItems, paymentLineItems } from './adyen.line-items.ts';
import { refundBody, refundPayment, resendModification } from './adyen.refunds.ts';
import { amountOf, returnUrlOf } from './adyen.requests.ts';
import { modificationOutcome, syncOfAuthorization, verifyAdyen } from './adyen.sync.ts';
import { parseAdyenWebhook } from './adyen.webhooks.ts';
import { ADYEN_KLARNA_DEFINITION, KLARNA_MARKETS } from './adyen-klarna.definition.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The buyer's name as Adyen's `shopperName` (the last word as the last name). */
function shopperNameOf(name: string | null | undefined): Record<string, unknown> {
  const parts = name?.trim().split(' ').filter(Boolean) ?? [];
  if (parts.length === 0) return {};
  return { shopperName: { firstName: parts.slice(0, -1).join(' ') || parts[0], lastName: parts.at(-1) } };
}

/** `POST /payments` of a Klarna payment redirected to Klarna (docs.adyen.com/payment-methods/klarna/api-only). */
export function klarnaPaymentBody(request: AuthorizeRequest): Record<string, unknown> {
  const country = request.country ?? '';
  if (!inTable(KLARNA_MARKETS, country))
    throw new ConnectorError('invalid_request', `Adyen does not offer Klarna to buyers in "${country}"`);
  const market = KLARNA_MARKETS[country];
  if (market.currency !== request.currency)
    throw new ConnectorError('invalid_request', `Klarna takes ${market.currency} only in ${country}`);
  return {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    paymentMethod: { type: market.type },
    returnUrl: returnUrlOf(request),
    channel: 'Web',
    countryCode: country,
    shopperInteraction: 'Ecommerce',
    lineItems: paymentLineItems(request.cartItems, request.amount, request.currency),
    ...(request.buyer?.emailAddress ? { shopperEmail: request.buyer.emailAddress } : {}),
    ...shopperNameOf(request.buyer?.name),
    ...(request.intent === 'capture' ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
  };
}

/**
 * Klarna through Adyen's Checkout API v71, sharing the card connector's client, answers, status
 * query and webhooks: `/payments` with the order's lines answers `RedirectShopper` (Klarna's page:
 * `buyer_approval_pending`); the buyer's return (`redirectResult`) is completed by
 * `/payments/details`. Captures (with lines, a partial one too), cancels and refunds are Adyen
 * modifications, pending until Adyen's webhook.
 */
export class AdyenKlarnaConnector implements PaymentConnector {
  readonly definition = ADYEN_KLARNA_DEFINITION;
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

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'klarna')
      throw new ConnectorError('invalid_request', 'adyen-klarna takes Klarna redirect payments only');
    const response = await this.client.post(
      request.credentials,
      '/payments',
      klarnaPaymentBody(request),
      request.idempotencyKey,
    );
    const outcome = authorizationOf(bodyOf<AdyenPaymentResponse>(response), request.intent);
    if (outcome.status === 'pending')
      throw new ConnectorError('timeout', 'Adyen has not decided the payment yet (resultCode Pending or Received)');
    return { ...outcome, status: outcome.status };
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    const outcome = await modificationOutcome(
      this.client,
      request,
      `/payments/${encodeURIComponent(request.providerTransactionId)}/captures`,
      captureBody(request),
      'capture_declined',
    );
    return { ...outcome.facts, status: outcome.status, providerCaptureId: outcome.pspReference };
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    const outcome = await modificationOutcome(
      this.client,
      request,
      `/payments/${encodeURIComponent(request.providerTransactionId)}/cancels`,
      { merchantAccount: request.credentials.merchant_account, reference: request.reference },
      'void_declined',
    );
    return { ...outcome.facts, status: outcome.status };
  }

  refund(request: RefundRequest): Promise<RefundOutcome> {
    return refundPayment(this.client, request, klarnaRefundBody(request));
  }

  /** The payment by the buyer's return or the idempotent probe; a capture, cancel or refund re-sent with its key. */
  async sync(request: SyncRequest): Promise<SyncOutcome> {
    switch (request.operation) {
      case 'authorize':
        return syncOfAuthorization(this.client, request);
      case 'capture':
        return resendModification(this.client, request, 'captures', captureBody(request));
      case 'refund':
        return resendModification(this.client, request, 'refunds', klarnaRefundBody(request));
      case 'void': {
        const payment = request.paymentProviderTransactionId ?? request.providerTransactionId ?? '';
        const outcome = await modificationOutcome(
          this.client,
          request,
          `/payments/${encodeURIComponent(payment)}/cancels`,
          { merchantAccount: request.credentials.merchant_account, reference: request.reference },
          'void_declined',
        );
        return outcome.status === 'pending'
          ? { ...blank, status: 'pending', providerTransactionId: request.providerTransactionId }
          : { ...outcome.facts, status: outcome.status, providerTransactionId: request.providerTransactionId };
      }
      default:
        return { ...blank, status: 'not_found', providerTransactionId: null };
    }
  }
}

type Modification = Pick<CaptureRequest, 'credentials' | 'reference' | 'amount' | 'currency' | 'payment'> &
  Pick<CaptureRequest, 'idempotencyKey' | 'options'>;

function captureBody(request: Modification): Record<string, unknown> {
  return {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    lineItems: modificationLineItems(request.payment, request.amount, request.currency, 'capture'),
  };
}

const klarnaRefundBody = (request: Modification) =>
  refundBody(request, {
    lineItems: modificationLineItems(request.payment, request.amount, request.currency, 'refund'),
  });
