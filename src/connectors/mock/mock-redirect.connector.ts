import { createHash } from 'node:crypto';
import { COUNTRY_CODES } from '../../lib/countries.ts';
import { CURRENCY_EXPONENTS } from '../../lib/currencies.ts';
import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  CaptureRules,
  ClientSessionOutcome,
  ClientSessionRequest,
  ConnectorDefinition,
  PaymentConnector,
  RefundOutcome,
  RefundRequest,
  SyncOutcome,
  SyncRequest,
  VerifyOutcome,
  VoidOutcome,
  VoidRequest,
} from '../connector.ts';
import { AMOUNT_SCENARIOS } from './mock-card.scenarios.ts';
import { sandboxPageSession } from './mock-session.ts';

export const MOCK_REDIRECT_DEFINITION: ConnectorDefinition = {
  id: 'mock-paybybank',
  displayName: 'Mock pay-by-bank (sandbox redirect)',
  method: 'paybybank',
  mode: 'redirect',
  fields: [
    {
      key: 'merchant_id',
      display_name: 'Merchant ID',
      required: true,
      format: 'text',
      secret: false,
      verifiable: true,
    },
  ],
  reportingFields: [],
  supportedCurrencies: Object.keys(CURRENCY_EXPONENTS).sort(),
  supportedCountries: [...COUNTRY_CODES].sort(),
  iconUrl: null,
  capabilities: {
    multiCapture: false,
    overCapture: false,
    partialCapture: true,
    partialRefund: true,
    void: true,
    cancel: true,
    sync: true,
    tokenize: false,
    payout: false,
    threeDSecure: false,
    networkTokens: false,
    redirect: true,
    sessions: false,
    incrementalAuthorization: false,
  },
  supportedIntegrationClients: ['redirect', 'web'],
  configuration: {
    approval_ui_target: 'any',
    approval_ui_height: '600px',
    approval_ui_width: '500px',
    cart_items_limit: 249,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
};

const providerId = (prefix: string, key: string) =>
  `${prefix}_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/**
 * A sandbox redirect method: every payment waits for the buyer on an approval page served by
 * this server (`/sandbox/approvals/...`). The buyer's choice, recorded by the engine, is what a
 * status query (`sync`) reports; the decline amounts of the card mock decline here too. One class
 * for every such method: `mock-paybybank` (the default) and `mock-paypal` (mock-paypal.definition.ts),
 * each with its own definition and provider id prefix.
 */
export class MockRedirectConnector implements PaymentConnector {
  constructor(
    readonly definition: ConnectorDefinition = MOCK_REDIRECT_DEFINITION,
    private readonly prefix = 'mock_pbb',
  ) {}

  captureRules(): CaptureRules {
    return { multiCapture: this.definition.capabilities.multiCapture, incrementalAuthorization: false };
  }

  async verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return credentials.merchant_id?.trim()
      ? { ok: true, problems: [] }
      : { ok: false, problems: [{ key: 'merchant_id', message: 'merchant_id is required' }] };
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    const id = providerId(this.prefix, request.idempotencyKey);
    return {
      ...blank,
      status: 'buyer_approval_pending',
      providerTransactionId: id,
      authResponseCode: null,
      avsResponseCode: null,
      cvvResponseCode: null,
      schemeTransactionId: null,
      merchantAdviceCode: null,
      additionalIdentifiers: { payment_id: id },
      approvalUrl: `${request.approvalBaseUrl}/sandbox/approvals/${encodeURIComponent(request.merchantAccountId ?? '')}/${request.idempotencyKey}`,
    };
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    return {
      ...blank,
      status: 'succeeded',
      providerCaptureId: providerId(`${this.prefix}_cap`, request.idempotencyKey),
    };
  }

  async void(_request: VoidRequest): Promise<VoidOutcome> {
    return { ...blank, status: 'succeeded' };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    return {
      ...blank,
      status: 'succeeded',
      providerRefundId: providerId(`${this.prefix}_ref`, request.idempotencyKey),
    };
  }

  /** A payment waiting at the sandbox approval page: that page (mock-session.ts). */
  async clientSession(request: ClientSessionRequest): Promise<ClientSessionOutcome> {
    return sandboxPageSession(this.definition, request);
  }

  async sync(request: SyncRequest): Promise<SyncOutcome> {
    const id = request.providerTransactionId ?? providerId(this.prefix, request.idempotencyKey);
    if (request.operation === 'capture') return { ...blank, status: 'captured', providerTransactionId: id };
    if (request.operation === 'void') return { ...blank, status: 'voided', providerTransactionId: id };
    if (request.operation === 'refund') return { ...blank, status: 'refunded', providerTransactionId: id };
    if (request.buyerApproved === null)
      return { ...blank, status: 'buyer_approval_pending', providerTransactionId: id };
    if (!request.buyerApproved)
      return {
        errorCode: 'buyer_declined',
        rawResponseCode: 'REJECTED',
        rawResponseDescription: 'The buyer declined the payment',
        status: 'declined',
        providerTransactionId: id,
      };
    const forced = AMOUNT_SCENARIOS.get(request.payment.authorizedAmount)?.scenario;
    if (forced?.kind === 'decline')
      return {
        errorCode: forced.errorCode,
        rawResponseCode: forced.rawCode,
        rawResponseDescription: forced.rawDescription,
        status: 'declined',
        providerTransactionId: id,
      };
    return { ...blank, status: request.intent === 'capture' ? 'captured' : 'authorized', providerTransactionId: id };
  }
}
