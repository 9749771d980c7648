import {
  type AuthorizeOutcome,
  type AuthorizeRequest,
  ConnectorError,
  type SyncOutcome,
  type SyncRequest,
} from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { authorizationOf, bodyOf, type AdyenPaymentResponse } from './adyen.answers.ts';
import { AdyenCapturedAtOnceConnector } from './adyen-captured-at-once.ts';
import { ADYEN_IDEAL_DEFINITION } from './adyen-ideal.definition.ts';
import { amountOf, returnUrlOf } from './adyen.requests.ts';
import { syncOfAuthorization } from './adyen.sync.ts';

/**
 * `POST /payments` of an iDEAL payment (docs.adyen.com/payment-methods/ideal/api-only):
 * `paymentMethod: {type: "ideal"}` (since iDEAL 2.0 the buyer picks the bank on iDEAL's own page,
 * so no `issuer` is sent), the return address, `shopperInteraction: Ecommerce`.
 */
export function idealPaymentBody(request: AuthorizeRequest, merchantAccount: string): Record<string, unknown> {
  return {
    merchantAccount,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    paymentMethod: { type: 'ideal' },
    returnUrl: returnUrlOf(request),
    channel: 'Web',
    countryCode: request.country ?? 'NL',
    shopperInteraction: 'Ecommerce',
  };
}

/**
 * iDEAL through Adyen's Checkout API v71, sharing the card connector's client, answers, status
 * query and webhooks: `/payments` answers `RedirectShopper` (the bank's page: the transaction's
 * `approval_url`, `buyer_approval_pending`); the buyer comes back to `/connector-returns/...` with
 * `redirectResult`, which the status query completes with `/payments/details`. An approved iDEAL
 * payment is captured at once (no separate capture, no cancel): only intent `capture` is taken.
 * Refunds are Adyen modifications (`received`, settled by the REFUND webhook).
 */
export class AdyenIdealConnector extends AdyenCapturedAtOnceConnector {
  readonly definition = ADYEN_IDEAL_DEFINITION;

  constructor(options: ProviderConnectorOptions = {}) {
    super(options, {
      capture: 'iDEAL payments are captured when the buyer approves them',
      void: 'iDEAL payments cannot be voided: refund them',
    });
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'ideal')
      throw new ConnectorError('invalid_request', 'adyen-ideal takes iDEAL redirect payments only');
    if (request.intent !== 'capture')
      throw new ConnectorError('invalid_request', 'iDEAL has no separate capture: send intent capture');
    const response = await this.client.post(
      request.credentials,
      '/payments',
      idealPaymentBody(request, request.credentials.merchant_account ?? ''),
      request.idempotencyKey,
    );
    const outcome = authorizationOf(bodyOf<AdyenPaymentResponse>(response), 'capture');
    if (outcome.status === 'pending')
      throw new ConnectorError('timeout', 'Adyen has not decided the payment yet (resultCode Pending or Received)');
    return { ...outcome, status: outcome.status };
  }

  /** The payment by the buyer's return (`/payments/details`) or the idempotent probe. */
  protected syncAuthorization(request: SyncRequest): Promise<SyncOutcome> {
    return syncOfAuthorization(this.client, { ...request, intent: 'capture' });
  }
}
