import {
  type CallBase,
  ConnectorError,
  type FetchSettlements,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRequest,
  type CaptureRules,
  type PaymentConnector,
  type RefundOutcome,
  type RefundRequest,
  type SyncOutcome,
  type SyncRequest,
  type TokenizeOutcome,
  type TokenizeRequest,
  type TokenSyncOutcome,
  type TokenSyncRequest,
  type VerifyOutcome,
  type VoidOutcome,
  type VoidRequest,
} from '../connector.ts';
import type { ProviderConnectorOptions, ProviderResponse } from '../provider-http.ts';
import { authorizationOf, bodyOf, storedPaymentMethodIdOf, type AdyenPaymentResponse } from './adyen.answers.ts';
import { AdyenClient } from './adyen.client.ts';
import { ADYEN_CARD_DEFINITION } from './adyen.definition.ts';
import { cardValidationDecline } from './adyen.mapping.ts';
import { amountOf, joinToken, paymentBody, tokenizeBody } from './adyen.requests.ts';
import { AdyenReports } from './adyen.reports.ts';
import { splitsBody } from './adyen.splits.ts';
import { parseAdyenWebhook } from './adyen.webhooks.ts';
import { modificationOutcome, syncOfAuthorization, verifyAdyen } from './adyen.sync.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

function declinedBy(
  request: AuthorizeRequest,
  decline: { errorCode: string; rawCode: string; rawDescription: string },
): AuthorizeOutcome {
  return {
    errorCode: decline.errorCode,
    rawResponseCode: decline.rawCode,
    rawResponseDescription: decline.rawDescription,
    status: 'declined',
    providerTransactionId: null,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: request.instrument.kind === 'card' && decline.errorCode === 'incorrect_cvv' ? 'no_match' : null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: {},
  };
}

/**
 * Adyen cards through the Checkout API v71. Authorizations are synchronous (or wait for the buyer's
 * 3DS redirect, completed through `/payments/details`); captures, cancels and refunds are
 * asynchronous at Adyen (`received` → our pending, settled by Adyen's webhook). Every call sends
 * the attempt id as `Idempotency-Key`.
 */
export class AdyenCardConnector implements PaymentConnector {
  readonly definition = ADYEN_CARD_DEFINITION;
  private readonly client: AdyenClient;
  readonly parseWebhook = parseAdyenWebhook;
  /** Adyen's Settlement details reports (adyen.reports.ts; docs/settlements.md, "Adyen"). */
  readonly settlements: FetchSettlements;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new AdyenClient(options);
    const reports = new AdyenReports(options);
    this.settlements = (request) => reports.settlements(request);
  }

  captureRules(credentials: Record<string, string>): CaptureRules {
    return { multiCapture: credentials.multi_capture_enabled === 'true', incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyAdyen(this.client, credentials);
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    const response = await this.client.post(
      request.credentials,
      '/payments',
      {
        ...paymentBody(request, request.credentials.merchant_account ?? ''),
        ...splitsBody(request.options, 'authorization', request.amount, request.currency),
      },
      request.idempotencyKey,
    );
    const decline = cardValidationDecline(response.status, response.json);
    if (decline) return declinedBy(request, decline);
    const outcome = authorizationOf(bodyOf<AdyenPaymentResponse>(response), request.intent);
    // Adyen has not decided yet: the outcome is unknown to us until reconciliation or its webhook.
    if (outcome.status === 'pending')
      throw new ConnectorError('timeout', 'Adyen has not decided the payment yet (resultCode Pending or Received)');
    return { ...outcome, status: outcome.status };
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    const body = modificationBody(request, 'capture');
    const outcome = await modificationOutcome(
      this.client,
      request,
      `/payments/${encodeURIComponent(request.providerTransactionId)}/captures`,
      body,
      'capture_declined',
    );
    return { ...outcome.facts, status: outcome.status, providerCaptureId: outcome.pspReference };
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    const body = { merchantAccount: request.credentials.merchant_account, reference: request.reference };
    const outcome = await modificationOutcome(
      this.client,
      request,
      `/payments/${encodeURIComponent(request.providerTransactionId)}/cancels`,
      body,
      'void_declined',
    );
    return { ...outcome.facts, status: outcome.status };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const body = modificationBody(request, 'refund');
    const outcome = await modificationOutcome(
      this.client,
      request,
      `/payments/${encodeURIComponent(request.providerTransactionId)}/refunds`,
      body,
      'refund_declined',
    );
    return {
      ...outcome.facts,
      status: outcome.status === 'pending' ? 'processing' : outcome.status,
      providerRefundId: outcome.pspReference,
    };
  }

  /**
   * Adyen's Checkout API has no status query. An authorization is asked again with its own
   * idempotency key (Adyen replays its first answer; a probe without a card that Adyen never saw
   * is refused, which proves the original never arrived), or completed with the buyer's 3DS return;
   * a modification is re-sent with its key (replayed, or made if it never arrived) and stays pending
   * until Adyen's webhook reports it.
   */
  async sync(request: SyncRequest): Promise<SyncOutcome> {
    if (request.operation === 'authorize') return syncOfAuthorization(this.client, request);
    if (request.operation === 'increment') return { ...blank, status: 'not_found', providerTransactionId: null };
    const path = { capture: 'captures', void: 'cancels', refund: 'refunds' }[request.operation];
    const declineCode = `${request.operation}_declined` as 'capture_declined' | 'void_declined' | 'refund_declined';
    const body =
      request.operation === 'void'
        ? { merchantAccount: request.credentials.merchant_account, reference: request.reference }
        : modificationBody(request, request.operation);
    // Re-posted as first sent: to the payment (a modification's own pspReference is no payment), with its reference.
    const payment = request.paymentProviderTransactionId ?? request.providerTransactionId ?? '';
    const outcome = await modificationOutcome(
      this.client,
      request,
      `/payments/${encodeURIComponent(payment)}/${path}`,
      body,
      declineCode,
    );
    if (outcome.status === 'pending')
      return { ...blank, status: 'pending', providerTransactionId: request.providerTransactionId };
    return { ...outcome.facts, status: outcome.status, providerTransactionId: request.providerTransactionId };
  }

  async tokenize(request: TokenizeRequest): Promise<TokenizeOutcome> {
    const currency = request.credentials.verification_currency?.trim() || 'EUR';
    const response = await this.client.post(
      request.credentials,
      '/payments',
      tokenizeBody(request, request.credentials.merchant_account ?? '', currency),
      request.idempotencyKey,
    );
    return tokenOutcome(response, request.idempotencyKey);
  }

  /** The tokenization, asked again with its idempotency key (the same probe as an authorization's). */
  async syncToken(request: TokenSyncRequest): Promise<TokenSyncOutcome> {
    const probe = {
      merchantAccount: request.credentials.merchant_account,
      reference: request.idempotencyKey,
      amount: { value: 0, currency: request.credentials.verification_currency?.trim() || 'EUR' },
    };
    const response = await this.client.post(request.credentials, '/payments', probe, request.idempotencyKey);
    if (response.status === 422) return { ...blank, status: 'not_found', token: null, approvalUrl: null };
    return tokenOutcome(response, request.idempotencyKey);
  }
}

/**
 * A capture's or refund's body: the amount and the split items the options give for it (the same
 * body again when reconciliation re-sends it with its idempotency key).
 */
function modificationBody(
  request: CallBase & { reference: string; amount: number; currency: string },
  operation: 'capture' | 'refund',
): Record<string, unknown> {
  return {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    ...splitsBody(request.options, operation, request.amount, request.currency),
  };
}

/** A tokenization answer; `shopperReference` is the one the request sent (the attempt id). */
function tokenOutcome(response: ProviderResponse, shopperReference: string): TokenizeOutcome {
  const decline = cardValidationDecline(response.status, response.json);
  if (decline)
    return {
      errorCode: decline.errorCode,
      rawResponseCode: decline.rawCode,
      rawResponseDescription: decline.rawDescription,
      status: 'failed',
      token: null,
      approvalUrl: null,
    };
  const answer = bodyOf<AdyenPaymentResponse>(response);
  const outcome = authorizationOf(answer, 'authorize');
  if (outcome.status === 'buyer_approval_pending')
    return { ...blank, status: 'buyer_approval_required', token: null, approvalUrl: outcome.approvalUrl };
  const stored = storedPaymentMethodIdOf(answer);
  if (outcome.status !== 'authorized' || !stored) {
    return {
      errorCode: outcome.errorCode ?? 'service_error',
      rawResponseCode: outcome.rawResponseCode ?? answer.resultCode ?? null,
      rawResponseDescription: outcome.rawResponseDescription ?? 'Adyen did not store the card',
      status: 'failed',
      token: null,
      approvalUrl: null,
    };
  }
  return { ...blank, status: 'succeeded', token: joinToken(shopperReference, stored), approvalUrl: null };
}
