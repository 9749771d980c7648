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
  DefinitionField,
  VerifyOutcome,
  VoidOutcome,
  VoidRequest,
} from '../connector.ts';
import { ConnectorError } from '../connector.ts';
import type { SimulateEvents } from '../connector-simulations.ts';
import type { ParseInboundWebhook } from '../connector-webhooks.ts';
import { documentOf } from '../dlocal/dlocal.payments.ts';
import { collectionEvents, pixEvents } from './mock-async.scenarios.ts';
import { AMOUNT_SCENARIOS } from './mock-card.scenarios.ts';
import { parseMockCardWebhook } from './mock-card.webhooks.ts';
import { pixCopyPasteCode } from './mock-pix-code.ts';
import { mockRedirectSync, type MockRedirectFlow } from './mock-redirect.sync.ts';
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

/** The simulated provider's id of what a call with this idempotency key made (prefix: the connector's). */
export const providerId = (prefix: string, key: string) =>
  `${prefix}_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The optional secret that signs the sandbox provider's webhooks (mock-card.webhooks.ts), for the simulators that send them. */
export const MOCK_WEBHOOK_SECRET_FIELD: DefinitionField = {
  key: 'webhook_secret',
  display_name: 'Webhook secret (signs the sandbox events you send to this service, docs/sandbox.md)',
  required: false,
  format: 'text',
  secret: true,
  verifiable: false,
};

/**
 * A sandbox redirect method: every payment waits for the buyer on an approval page served by
 * this server (`/sandbox/approvals/...`). The buyer's choice, recorded by the engine, is what a
 * status query (`sync`) reports; the decline amounts of the card mock decline here too, and
 * `2408` loses the answer (a timeout) as with the card mock. One class for every such method, each
 * with its own definition, provider id prefix and flow (mock-redirect.sync.ts): `mock-paybybank`
 * (the default), `mock-paypal`, `mock-klarna`, `mock-ideal`, `mock-gocardless`, `mock-sepa`,
 * `mock-pix` (the `mock-*.definition.ts` files). The asynchronous ones (direct debit, PIX) also
 * say what their simulated provider reports later (`simulatedEvents`, mock-async.scenarios.ts).
 */
export class MockRedirectConnector implements PaymentConnector {
  /** Signed sandbox events (docs/sandbox.md, "Provider webhooks"), for a definition with a `webhook_secret` field. */
  readonly parseWebhook?: ParseInboundWebhook;
  /** What the simulated provider reports later: a direct debit's collection, a PIX code paid or expired. */
  readonly simulatedEvents?: SimulateEvents;

  constructor(
    readonly definition: ConnectorDefinition = MOCK_REDIRECT_DEFINITION,
    private readonly prefix = 'mock_pbb',
    private readonly flow: MockRedirectFlow = 'approval',
  ) {
    if (definition.fields.some((f) => f.key === MOCK_WEBHOOK_SECRET_FIELD.key))
      this.parseWebhook = (credentials, request) => parseMockCardWebhook(credentials, request);
    if (flow === 'direct-debit') this.simulatedEvents = (request) => collectionEvents(request, prefix);
    if (flow === 'pix') this.simulatedEvents = (request) => pixEvents(request, prefix);
  }

  captureRules(): CaptureRules {
    return { multiCapture: this.definition.capabilities.multiCapture, incrementalAuthorization: false };
  }

  async verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return credentials.merchant_id?.trim()
      ? { ok: true, problems: [] }
      : { ok: false, problems: [{ key: 'merchant_id', message: 'merchant_id is required' }] };
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.instrument.kind !== 'redirect' || request.instrument.method !== this.definition.method)
      throw new ConnectorError(
        'invalid_request',
        `${this.definition.id} takes the ${this.definition.method} method only`,
      );
    if (this.flow === 'captured-at-once' && request.intent !== 'capture')
      throw new ConnectorError(
        'invalid_request',
        `${this.definition.method} has no separate capture: send intent capture`,
      );
    if (AMOUNT_SCENARIOS.get(request.amount)?.scenario.kind === 'timeout')
      throw new ConnectorError('timeout', 'The sandbox provider took the payment but its answer never arrived');
    const id = providerId(this.prefix, request.idempotencyKey);
    const outcome: AuthorizeOutcome = {
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
    return this.flow === 'pix' ? pixOutcome(request, outcome, id) : outcome;
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    if (this.flow === 'captured-at-once' || this.flow === 'pix')
      throw new ConnectorError(
        'invalid_request',
        `A ${this.definition.method} payment is captured when the buyer pays it`,
      );
    return {
      ...blank,
      // A direct debit's collection is decided later (docs/sandbox.md, "Asynchronous methods").
      status: this.flow === 'direct-debit' ? 'pending' : 'succeeded',
      providerCaptureId: providerId(`${this.prefix}_cap`, request.idempotencyKey),
    };
  }

  async void(_request: VoidRequest): Promise<VoidOutcome> {
    if (this.flow === 'captured-at-once' || this.flow === 'pix')
      throw new ConnectorError('invalid_request', `A ${this.definition.method} payment cannot be voided: refund it`);
    return { ...blank, status: 'succeeded' };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const later = this.flow === 'direct-debit' || this.flow === 'pix';
    return {
      ...blank,
      status: later ? 'processing' : 'succeeded',
      providerRefundId: providerId(`${this.prefix}_ref`, request.idempotencyKey),
    };
  }

  /** A payment waiting at the sandbox approval page: that page (mock-session.ts). */
  async clientSession(request: ClientSessionRequest): Promise<ClientSessionOutcome> {
    return sandboxPageSession(this.definition, request);
  }

  async sync(request: SyncRequest): Promise<SyncOutcome> {
    const id = request.providerTransactionId ?? providerId(this.prefix, request.idempotencyKey);
    return mockRedirectSync(this.flow, request, id);
  }
}

/**
 * A PIX payment as dlocal-pix answers one: the buyer's CPF or CNPJ, name and email are needed
 * (failed before anything is made otherwise, with the same reason); then waiting, with the
 * copy-and-paste code in `additional_identifiers` (`pix_qr_code`). `approval_url` is the sandbox
 * page standing in for the buyer's bank app, where the code can be paid at once.
 */
function pixOutcome(request: AuthorizeRequest, outcome: AuthorizeOutcome, id: string): AuthorizeOutcome {
  const problem =
    request.currency !== 'BRL'
      ? 'PIX takes BRL payments in Brazil (BR) only'
      : !documentOf(request)
        ? "PIX needs the buyer's CPF or CNPJ: buyer.billing_details.tax_id with kind br.cpf (11 digits) or br.cnpj (14 digits)"
        : !request.buyer?.name?.trim() || !request.buyer?.emailAddress?.trim()
          ? "PIX needs the buyer's name and email address (buyer.billing_details)"
          : null;
  if (problem)
    return {
      ...outcome,
      status: 'failed',
      providerTransactionId: null,
      approvalUrl: null,
      additionalIdentifiers: {},
      errorCode: 'service_error',
      rawResponseCode: 'request_not_sent',
      rawResponseDescription: problem,
    };
  return {
    ...outcome,
    additionalIdentifiers: {
      payment_id: id,
      pix_qr_code: pixCopyPasteCode(id, request.amount),
      pix_qr_code_image_url: null,
      pix_expires_at: null,
    },
  };
}
