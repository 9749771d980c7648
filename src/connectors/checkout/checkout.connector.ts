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
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { toCheckoutAmount } from './checkout.amounts.ts';
import { CheckoutClient } from './checkout.client.ts';
import { CHECKOUT_CARD_DEFINITION } from './checkout.definition.ts';
import { followUp } from './checkout.follow-ups.ts';
import { authorizeCard, syncAuthorization, syncModification } from './checkout.payments.ts';
import { payoutToCard, syncPayoutOf } from './checkout.payouts.ts';
import { verifyCheckout } from './checkout.verify.ts';
import { parseCheckoutWebhook } from './checkout.webhooks.ts';

/**
 * Checkout.com cards on the Unified Payments API (docs/connectors-checkout.md): authorizations
 * (synchronous, or through Checkout.com's 3DS page), captures (partial; NonFinal when more may
 * follow), voids and refunds accepted at once and settled by webhook or `sync`, card payouts from
 * a currency account, and `Cko-Signature` webhooks. REST through our relay (provider-http.ts).
 */
export class CheckoutCardConnector implements PaymentConnector {
  readonly definition = CHECKOUT_CARD_DEFINITION;
  readonly parseWebhook = parseCheckoutWebhook;
  private readonly client: CheckoutClient;

  constructor(options: ProviderConnectorOptions = {}) {
    this.client = new CheckoutClient(options);
  }

  captureRules(credentials: Record<string, string>): CaptureRules {
    return { multiCapture: credentials.multi_capture_enabled === 'true', incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyCheckout(this.client, credentials);
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    return authorizeCard(this.client, request);
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    const answer = await followUp(this.client, request, request.providerTransactionId, 'captures', {
      amount: toCheckoutAmount(request.amount, request.currency),
      reference: request.reference,
      capture_type: request.final ? 'Final' : 'NonFinal',
    });
    return { ...answer.facts, status: answer.status, providerCaptureId: answer.actionId };
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    const answer = await followUp(this.client, request, request.providerTransactionId, 'voids', {
      reference: request.reference,
    });
    return { ...answer.facts, status: answer.status };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const answer = await followUp(this.client, request, request.providerTransactionId, 'refunds', {
      amount: toCheckoutAmount(request.amount, request.currency),
      reference: request.reference,
    });
    return {
      ...answer.facts,
      status: answer.status === 'pending' ? 'processing' : answer.status,
      providerRefundId: answer.actionId,
    };
  }

  sync(request: SyncRequest): Promise<SyncOutcome> {
    const { operation } = request;
    if (operation === 'authorize') return syncAuthorization(this.client, request);
    if (operation === 'increment')
      return Promise.resolve({
        errorCode: null,
        rawResponseCode: null,
        rawResponseDescription: null,
        status: 'not_found',
        providerTransactionId: null,
      });
    return syncModification(this.client, { ...request, operation });
  }

  payout(request: PayoutRequest): Promise<PayoutOutcome> {
    return payoutToCard(this.client, request);
  }

  syncPayout(request: PayoutSyncRequest): Promise<PayoutSyncOutcome> {
    return syncPayoutOf(this.client, request);
  }
}
