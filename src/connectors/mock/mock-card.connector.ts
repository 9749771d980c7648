import { createHash } from 'node:crypto';
import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRequest,
  type CaptureRules,
  type ClientSessionOutcome,
  type ClientSessionRequest,
  type ConnectorDefinition,
  type IncrementOutcome,
  type IncrementRequest,
  type PaymentHint,
  type PaymentConnector,
  type PayoutOutcome,
  type PayoutRequest,
  type PayoutSyncOutcome,
  type PayoutSyncRequest,
  type RefundOutcome,
  type RefundRequest,
  type SessionOutcome,
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
import { COUNTRY_CODES } from '../../lib/countries.ts';
import { CURRENCY_EXPONENTS } from '../../lib/currencies.ts';
import { payoutScenarioOf } from './mock-card-payouts.scenarios.ts';
import { incrementScenarioOf, scenarioOf, type MockScenario } from './mock-card.scenarios.ts';
import { parseMockCardWebhook } from './mock-card.webhooks.ts';
import { sandboxPageSession } from './mock-session.ts';
import { openWalletToken } from './mock-card-wallet-tokens.ts';
import {
  SIMULATION_FIELDS,
  simulatedOutcome,
  simulationProblems,
  type SimulatedOutcome,
} from './mock-card-simulation.ts';
import { memoryLedger, type SimulatorLedger } from '../simulator-ledger.ts';

export const MOCK_CARD_DEFINITION: ConnectorDefinition = {
  id: 'mock-card',
  displayName: 'Mock card processor (sandbox)',
  method: 'card',
  mode: 'card',
  fields: [
    {
      key: 'merchant_id',
      display_name: 'Merchant ID',
      required: true,
      format: 'text',
      secret: false,
      verifiable: true,
    },
    { key: 'api_key', display_name: 'API key', required: false, format: 'text', secret: true, verifiable: false },
    {
      key: 'webhook_secret',
      display_name: 'Webhook signing secret (sandbox webhooks, X-Mock-Signature)',
      required: false,
      format: 'text',
      secret: true,
      verifiable: false,
    },
    {
      key: 'multi_capture_enabled',
      display_name: 'Allow multiple captures',
      required: false,
      format: 'boolean',
      secret: false,
      verifiable: false,
    },
    {
      key: 'incremental_authorization_enabled',
      display_name: 'Allow raising an authorization (incremental authorization)',
      required: false,
      format: 'boolean',
      secret: false,
      verifiable: false,
    },
    ...SIMULATION_FIELDS,
  ],
  reportingFields: [],
  supportedCurrencies: Object.keys(CURRENCY_EXPONENTS).sort(),
  supportedCountries: [...COUNTRY_CODES].sort(),
  iconUrl: null,
  capabilities: {
    multiCapture: true,
    overCapture: true,
    partialCapture: true,
    partialRefund: true,
    void: true,
    cancel: true,
    sync: true,
    tokenize: true,
    payout: true,
    threeDSecure: true,
    networkTokens: true,
    redirect: false,
    sessions: true,
    incrementalAuthorization: true,
    // Simulated like a provider holding the sandbox's wallet keys (mock-card-wallet-tokens.ts).
    encryptedWalletTokens: ['apple', 'google'],
  },
  supportedIntegrationClients: null,
  configuration: {
    approval_ui_target: 'any',
    approval_ui_height: '',
    approval_ui_width: '',
    cart_items_limit: 249,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
};

/** A provider-like id derived from our idempotency key: a retried call finds the same payment. */
const providerId = (prefix: string, key: string) =>
  `${prefix}_${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
/** The scheme's transaction id the sandbox answers for an approved authorization (the same when found again by sync). */
const schemeIdOf = (key: string) => providerId('sch', key).slice(4, 19);

function hintOf(request: AuthorizeRequest): { bin: string | null; last4: string | null } {
  const { instrument } = request;
  if (instrument.kind === 'card') return { bin: instrument.number.slice(0, 6), last4: instrument.number.slice(-4) };
  if (instrument.kind === 'network-token')
    return { bin: instrument.token.slice(0, 6), last4: instrument.token.slice(-4) };
  return { bin: null, last4: null };
}

/**
 * What the sandbox received as the previous scheme transaction id of a merchant-initiated payment,
 * kept with the payment's identifiers (`additional_identifiers.previous_scheme_transaction_id`) so
 * a merchant can see what a provider would have been sent.
 */
const received = (request: AuthorizeRequest): Record<string, string> =>
  request.previousSchemeTransactionId ? { previous_scheme_transaction_id: request.previousSchemeTransactionId } : {};

function approved(request: AuthorizeRequest, scenario: MockScenario): AuthorizeOutcome {
  return {
    ...blank,
    status:
      request.intent === 'capture'
        ? scenario.kind === 'capture-pending'
          ? 'capture_pending'
          : 'captured'
        : 'authorized',
    providerTransactionId: providerId('mock_txn', request.idempotencyKey),
    authResponseCode: '00',
    avsResponseCode: 'unavailable',
    cvvResponseCode:
      request.instrument.kind === 'card' ? (request.instrument.securityCode ? 'match' : 'not_provided') : null,
    schemeTransactionId: schemeIdOf(request.idempotencyKey),
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: { authorization_id: providerId('auth', request.idempotencyKey), ...received(request) },
  };
}

function refused(
  request: AuthorizeRequest,
  status: 'declined' | 'failed',
  facts: { errorCode: string; rawCode: string; rawDescription: string; cvv?: 'no_match' },
): AuthorizeOutcome {
  const advice = request.options?.merchant_advice_code as { result?: string | null } | null | undefined;
  return {
    errorCode: facts.errorCode,
    rawResponseCode: facts.rawCode,
    rawResponseDescription: facts.rawDescription,
    status,
    providerTransactionId: providerId('mock_txn', request.idempotencyKey),
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: facts.cvv ?? null,
    schemeTransactionId: null,
    merchantAdviceCode: advice?.result ?? null,
    approvalUrl: null,
    additionalIdentifiers: received(request),
  };
}

/** What a status query finds of an increase: approved (`authorized`) unless its amount says otherwise. */
function syncIncrement(request: SyncRequest): SyncOutcome {
  const scenario = incrementScenarioOf(request.amount);
  const id = request.providerTransactionId;
  if (scenario.kind === 'unavailable') return { ...blank, status: 'not_found', providerTransactionId: null };
  if (scenario.kind === 'decline' || scenario.kind === 'fail')
    return {
      errorCode: scenario.errorCode,
      rawResponseCode: scenario.rawCode,
      rawResponseDescription: scenario.rawDescription,
      status: scenario.kind === 'decline' ? 'declined' : 'failed',
      providerTransactionId: id,
    };
  return { ...blank, status: 'authorized', providerTransactionId: id };
}

const SIMULATED: Record<Exclude<SimulatedOutcome, 'none'>, MockScenario> = {
  unavailable: { kind: 'unavailable' },
  error: { kind: 'fail', errorCode: 'service_error', rawCode: '96', rawDescription: 'System malfunction (simulated)' },
  decline: { kind: 'decline', errorCode: 'do_not_honor', rawCode: '05', rawDescription: 'Do not honor (simulated)' },
  timeout: { kind: 'timeout' },
};

/** The service-level simulation of this authorization (mock-card-simulation.ts), if any. */
function scenarioOfCall(credentials: Record<string, string>, idempotencyKey: string): MockScenario | null {
  const outcome = simulatedOutcome(credentials, idempotencyKey);
  return outcome === 'none' ? null : SIMULATED[outcome];
}

const NOT_FOUND: SyncOutcome = { ...blank, status: 'not_found', providerTransactionId: null };

/**
 * The sandbox card processor. Deterministic: the outcome comes from the amount or the card (see
 * mock-card.scenarios.ts). Timeouts throw `ConnectorError('timeout')` after "authorizing", so the
 * crash-safety path (attempt unknown → reconciliation) is exercised for real.
 *
 * Every money-moving call it receives (authorize, capture, void, refund, increase, payout) is noted
 * in its ledger (simulator-ledger.ts) before it answers; an unreachable processor (the
 * `unavailable` scenarios) receives nothing. A status query (`sync`, `syncPayout`) about a call the
 * ledger does not hold answers `not_found`, as a real provider does for a request that never
 * reached it (a process killed before the call): reconciliation then fails it instead of recording
 * a payment, capture, void or refund that never happened.
 */
export class MockCardConnector implements PaymentConnector {
  readonly definition = MOCK_CARD_DEFINITION;
  readonly parseWebhook = parseMockCardWebhook;

  constructor(private readonly ledger: SimulatorLedger = memoryLedger()) {}

  private receive(operation: string, idempotencyKey: string): Promise<void> {
    return this.ledger.received({ service: MOCK_CARD_DEFINITION.id, operation, idempotencyKey }, null);
  }

  private async wasReceived(operation: string, idempotencyKey: string): Promise<boolean> {
    return (await this.ledger.lookup({ service: MOCK_CARD_DEFINITION.id, operation, idempotencyKey })) !== null;
  }

  captureRules(credentials: Record<string, string>): CaptureRules {
    return {
      multiCapture: credentials.multi_capture_enabled === 'true',
      incrementalAuthorization: credentials.incremental_authorization_enabled === 'true',
    };
  }

  async verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    const problems: VerifyOutcome['problems'] = [];
    if (!credentials.merchant_id?.trim()) problems.push({ key: 'merchant_id', message: 'merchant_id is required' });
    else if (credentials.merchant_id === 'invalid')
      problems.push({ key: 'merchant_id', message: 'The mock processor rejects the merchant_id "invalid"' });
    for (const key of ['multi_capture_enabled', 'incremental_authorization_enabled']) {
      if (credentials[key] !== undefined && !['true', 'false'].includes(credentials[key]!))
        problems.push({ key, message: `${key} must be "true" or "false"` });
    }
    problems.push(...simulationProblems(credentials));
    return { ok: problems.length === 0, problems };
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.instrument.kind === 'wallet-token') {
      // Provider-side decryption: the token is opened here and its card paid like any other.
      const opened = openWalletToken(request.instrument, request);
      if (!opened.ok) {
        await this.receive('authorize', request.idempotencyKey);
        return refused(request, 'declined', opened);
      }
      request = { ...request, instrument: opened.instrument };
    }
    const scenario =
      scenarioOfCall(request.credentials, request.idempotencyKey) ?? scenarioOf(request.amount, hintOf(request));
    if (scenario.kind !== 'unavailable') await this.receive('authorize', request.idempotencyKey);
    switch (scenario.kind) {
      case 'decline':
        return refused(request, 'declined', scenario);
      case 'fail':
        return refused(request, 'failed', scenario);
      case 'timeout':
        throw new ConnectorError('timeout', 'The mock processor did not answer in time');
      case 'unavailable':
        throw new ConnectorError('unavailable', 'The mock processor could not be reached');
      case 'three-ds-required':
        if (!request.threeDSecure)
          return refused(request, 'declined', {
            errorCode: 'authentication_required',
            rawCode: '1A',
            rawDescription: 'Strong customer authentication required',
          });
        return approved(request, scenario);
      // Scenarios of the follow-up calls: the authorization itself is approved. No `default`: a new
      // scenario kind does not compile until its authorization outcome is chosen here.
      case 'approve':
      case 'capture-pending':
      case 'void-pending':
      case 'refund-decline':
      case 'dispute':
      case 'dispute-reversed':
        return approved(request, scenario);
    }
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    await this.receive('capture', request.idempotencyKey);
    const scenario = this.scenarioOfPayment(request);
    return {
      ...blank,
      status: scenario.kind === 'capture-pending' ? 'pending' : 'succeeded',
      providerCaptureId: providerId('mock_cap', request.idempotencyKey),
    };
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    await this.receive('void', request.idempotencyKey);
    const scenario = this.scenarioOfPayment(request);
    return { ...blank, status: scenario.kind === 'void-pending' ? 'pending' : 'succeeded' };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    await this.receive('refund', request.idempotencyKey);
    const scenario = this.scenarioOfPayment(request);
    if (scenario.kind === 'refund-decline') {
      return {
        errorCode: 'refund_declined',
        rawResponseCode: '12',
        rawResponseDescription: 'Invalid transaction',
        status: 'declined',
        providerRefundId: null,
      };
    }
    return { ...blank, status: 'succeeded', providerRefundId: providerId('mock_ref', request.idempotencyKey) };
  }

  /** The increase decides by its own amount (INCREMENT_AMOUNT_SCENARIOS); any other increase is approved. */
  async incrementAuthorization(request: IncrementRequest): Promise<IncrementOutcome> {
    const scenario = incrementScenarioOf(request.amount);
    if (scenario.kind !== 'unavailable') await this.receive('increment', request.idempotencyKey);
    switch (scenario.kind) {
      case 'decline':
      case 'fail':
        return {
          errorCode: scenario.errorCode,
          rawResponseCode: scenario.rawCode,
          rawResponseDescription: scenario.rawDescription,
          status: scenario.kind === 'decline' ? 'declined' : 'failed',
        };
      case 'timeout':
        throw new ConnectorError('timeout', 'The mock processor did not answer in time');
      case 'unavailable':
        throw new ConnectorError('unavailable', 'The mock processor could not be reached');
      case 'approve':
      case 'capture-pending':
      case 'void-pending':
      case 'refund-decline':
      case 'dispute':
      case 'dispute-reversed':
      case 'three-ds-required':
        return { ...blank, status: 'succeeded' };
    }
  }

  async sync(request: SyncRequest): Promise<SyncOutcome> {
    if (!(await this.wasReceived(request.operation, request.idempotencyKey))) return NOT_FOUND;
    if (request.operation === 'increment') return syncIncrement(request);
    const simulated =
      request.operation === 'authorize' ? scenarioOfCall(request.credentials, request.idempotencyKey) : null;
    const scenario = simulated ?? scenarioOf(request.payment.authorizedAmount, request.payment);
    const id = request.providerTransactionId ?? providerId('mock_txn', request.idempotencyKey);
    switch (request.operation) {
      case 'authorize':
        if (scenario.kind === 'unavailable') return { ...blank, status: 'not_found', providerTransactionId: null };
        if (scenario.kind === 'decline')
          return {
            errorCode: scenario.errorCode,
            rawResponseCode: scenario.rawCode,
            rawResponseDescription: scenario.rawDescription,
            status: 'declined',
            providerTransactionId: id,
          };
        if (scenario.kind === 'fail')
          return {
            errorCode: scenario.errorCode,
            rawResponseCode: scenario.rawCode,
            rawResponseDescription: scenario.rawDescription,
            status: 'failed',
            providerTransactionId: id,
          };
        return {
          ...blank,
          status: request.intent === 'capture' ? 'captured' : 'authorized',
          providerTransactionId: id,
          schemeTransactionId: schemeIdOf(request.idempotencyKey),
        };
      case 'capture':
        return { ...blank, status: 'captured', providerTransactionId: id };
      case 'void':
        return { ...blank, status: 'voided', providerTransactionId: id };
      case 'refund':
        return { ...blank, status: 'refunded', providerTransactionId: id };
    }
  }

  async tokenize(request: TokenizeRequest): Promise<TokenizeOutcome> {
    const scenario = scenarioOf(0, { bin: request.card.number.slice(0, 6), last4: request.card.number.slice(-4) });
    if (scenario.kind === 'decline' || scenario.kind === 'fail') {
      return {
        errorCode: scenario.errorCode,
        rawResponseCode: scenario.rawCode,
        rawResponseDescription: scenario.rawDescription,
        status: 'failed',
        token: null,
        approvalUrl: null,
      };
    }
    return { ...blank, status: 'succeeded', token: providerId('mock_tok', request.idempotencyKey), approvalUrl: null };
  }

  /** The outcome `tokenize` gave (or would give) for this key and card: the same token. */
  async syncToken(request: TokenSyncRequest): Promise<TokenSyncOutcome> {
    const scenario = scenarioOf(0, request.card);
    if (scenario.kind === 'unavailable') return { ...blank, status: 'not_found', token: null, approvalUrl: null };
    if (scenario.kind === 'decline' || scenario.kind === 'fail') {
      return {
        errorCode: scenario.errorCode,
        rawResponseCode: scenario.rawCode,
        rawResponseDescription: scenario.rawDescription,
        status: 'failed',
        token: null,
        approvalUrl: null,
      };
    }
    return { ...blank, status: 'succeeded', token: providerId('mock_tok', request.idempotencyKey), approvalUrl: null };
  }

  async createSession(credentials: Record<string, string>, body: Record<string, unknown>): Promise<SessionOutcome> {
    return {
      status: 'succeeded',
      code: null,
      statusCode: 200,
      responseBody: {
        session_id: providerId('mock_ses', JSON.stringify(body) + (credentials.merchant_id ?? '')),
        merchant_id: credentials.merchant_id ?? null,
      },
    };
  }

  /** A transaction waiting at the sandbox 3DS challenge page: that page (mock-session.ts). */
  async clientSession(request: ClientSessionRequest): Promise<ClientSessionOutcome> {
    return sandboxPageSession(this.definition, request);
  }

  /** Outcomes by amount or card (mock-card-payouts.scenarios.ts); a retry with the same idempotency key finds the same payout id. */
  async payout(request: PayoutRequest): Promise<PayoutOutcome> {
    const { instrument } = request;
    if (instrument.kind === 'provider-account')
      throw new ConnectorError('invalid_request', 'mock-card pays out to cards only');
    const hint =
      instrument.kind === 'card'
        ? { bin: instrument.number.slice(0, 6), last4: instrument.number.slice(-4) }
        : { bin: null, last4: null };
    const scenario = payoutScenarioOf(request.amount, hint);
    if (scenario.kind !== 'unavailable') await this.receive('payout', request.idempotencyKey);
    const providerPayoutId = providerId('mock_pay', request.idempotencyKey);
    switch (scenario.kind) {
      case 'succeed':
        return { ...blank, status: 'succeeded', providerPayoutId };
      case 'pending':
        return { ...blank, status: 'pending', providerPayoutId };
      case 'decline':
      case 'fail':
        return {
          errorCode: scenario.errorCode,
          rawResponseCode: scenario.rawCode,
          rawResponseDescription: scenario.rawDescription,
          status: scenario.kind === 'decline' ? 'declined' : 'failed',
          providerPayoutId,
        };
      case 'timeout':
        throw new ConnectorError('timeout', 'The mock processor did not answer in time');
      case 'unavailable':
        throw new ConnectorError('unavailable', 'The mock processor could not be reached');
    }
  }

  /**
   * The status a payout reached, from the same amount and card facts as `payout`: a pending payout
   * has been sent by the time anyone asks, a timed-out one was made (only its answer was lost), and
   * a payout the ledger does not hold (an unreachable provider, a process killed before the call)
   * was never received.
   */
  async syncPayout(request: PayoutSyncRequest): Promise<PayoutSyncOutcome> {
    if (!(await this.wasReceived('payout', request.idempotencyKey)))
      return { ...blank, status: 'not_found', providerPayoutId: null };
    const scenario = payoutScenarioOf(request.amount, request.card);
    const providerPayoutId = request.providerPayoutId ?? providerId('mock_pay', request.idempotencyKey);
    switch (scenario.kind) {
      case 'decline':
      case 'fail':
        return {
          errorCode: scenario.errorCode,
          rawResponseCode: scenario.rawCode,
          rawResponseDescription: scenario.rawDescription,
          status: scenario.kind === 'decline' ? 'declined' : 'failed',
          providerPayoutId,
        };
      case 'unavailable':
        return { ...blank, status: 'not_found', providerPayoutId: null };
      case 'succeed':
      case 'pending':
      case 'timeout':
        return { ...blank, status: 'succeeded', providerPayoutId };
    }
  }

  /** Follow-up calls find the payment's scenario from the facts of the original payment. */
  private scenarioOfPayment(request: { payment: PaymentHint }): MockScenario {
    return scenarioOf(request.payment.authorizedAmount, request.payment);
  }
}
