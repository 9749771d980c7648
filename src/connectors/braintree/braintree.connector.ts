import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type CaptureOutcome,
  type CaptureRequest,
  type CaptureRules,
  type PaymentConnector,
  type RefundOutcome,
  type RefundRequest,
  type ResponseFacts,
  type SettlementFetchRequest,
  type SettlementPage,
  type SyncOutcome,
  type SyncRequest,
  type TokenizeOutcome,
  type TokenizeRequest,
  type VerifyOutcome,
  type VoidOutcome,
  type VoidRequest,
} from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { toBraintreeAmount } from './braintree.amounts.ts';
import {
  authorizationOf,
  refundStatusOf,
  type BraintreeRefund,
  type BraintreeTransaction,
} from './braintree.answers.ts';
import { BraintreeClient } from './braintree.client.ts';
import { BRAINTREE_CARD_DEFINITION } from './braintree.definition.ts';
import { fetchBraintreeSettlements, type BraintreeSettlementOptions } from './braintree.settlements.ts';
import { dataOf, isFacts, processorErrorCode } from './braintree.mapping.ts';
import { AUTHORIZE_CARD, CAPTURE, CHARGE_CARD, REFUND, REVERSE, TOKENIZE_CARD, VAULT } from './braintree.queries.ts';
import { syncOfBraintree, verifyBraintree } from './braintree.sync.ts';
import { parseBraintreeWebhook } from './braintree.webhooks.ts';

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The Braintree merchant account of a currency (`merchant_account_ids`), or the default account when none is configured. */
export function merchantAccountOf(credentials: Record<string, string>, currency: string): string | null {
  const raw = credentials.merchant_account_ids?.trim();
  if (!raw) return null;
  const map = new Map(raw.split(',').map((pair) => pair.split('=').map((s) => s.trim()) as [string, string]));
  const id = map.get(currency);
  if (!id)
    throw new ConnectorError(
      'invalid_request',
      `The Braintree payment service has no merchant account for ${currency} (merchant_account_ids)`,
    );
  return id;
}

function declined(facts: ResponseFacts): AuthorizeOutcome {
  return {
    ...facts,
    status: 'declined',
    providerTransactionId: null,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: facts.errorCode === 'incorrect_cvv' ? 'no_match' : null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: {},
  };
}

/**
 * Braintree cards through its GraphQL API (plain HTTP: the `braintree` SDK speaks XML to the
 * gateway through its own HTTP client, which would bypass the SSRF-checked relay; decision 0080).
 * Braintree has no idempotency key for these mutations: every transaction carries the attempt id
 * as its `orderId`, and a call without an answer is found by searching that orderId (`sync`),
 * never sent again.
 */
export class BraintreeCardConnector implements PaymentConnector {
  readonly definition = BRAINTREE_CARD_DEFINITION;
  readonly parseWebhook = parseBraintreeWebhook;
  private readonly client: BraintreeClient;

  /** `settlementOptions`: page size, lag and clock of the settlements reader (tests; the defaults otherwise). */
  constructor(
    options: ProviderConnectorOptions = {},
    private readonly settlementOptions: BraintreeSettlementOptions = {},
  ) {
    this.client = new BraintreeClient(options);
  }

  /** Settled transactions and refunds with their disbursements, and disputes (braintree.settlements.ts); bound, as the engine may pass it around. */
  readonly settlements = (request: SettlementFetchRequest): Promise<SettlementPage> =>
    fetchBraintreeSettlements(this.client, request, this.settlementOptions);

  captureRules(): CaptureRules {
    return { multiCapture: false, incrementalAuthorization: false };
  }

  verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyBraintree(this.client, credentials);
  }

  /** A single-use payment method id for a card (tokenizeCreditCard), or the vaulted id of a stored card. */
  private async paymentMethodId(request: AuthorizeRequest): Promise<string | ResponseFacts> {
    const { instrument } = request;
    if (instrument.kind === 'payment-service-token') return instrument.token;
    if (instrument.kind !== 'card')
      throw new ConnectorError(
        'invalid_request',
        `The Braintree card connector does not take ${instrument.kind} instruments`,
      );
    const result = dataOf(
      await this.client.call<Record<string, { paymentMethod: { id: string } } | null>>(
        request.credentials,
        TOKENIZE_CARD,
        { input: { creditCard: cardInput(instrument) } },
      ),
      'tokenizeCreditCard',
    );
    return isFacts(result) ? result : result.paymentMethod.id;
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    const merchantAccountId = merchantAccountOf(request.credentials, request.currency);
    const paymentMethodId = await this.paymentMethodId(request);
    if (isFacts(paymentMethodId)) return declined(paymentMethodId);
    const transaction = {
      amount: toBraintreeAmount(request.amount, request.currency),
      orderId: request.idempotencyKey,
      ...(merchantAccountId ? { merchantAccountId } : {}),
      ...initiatorOf(request),
    };
    const [query, field] =
      request.intent === 'capture' ? [CHARGE_CARD, 'chargeCreditCard'] : [AUTHORIZE_CARD, 'authorizeCreditCard'];
    const options = externalVaultOf(request);
    const answer = await this.client.call<Record<string, { transaction: BraintreeTransaction } | null>>(
      request.credentials,
      query,
      { input: { paymentMethodId, transaction, ...(options ? { options } : {}) } },
    );
    const result = dataOf(answer, field);
    if (isFacts(result)) return declined(result);
    const outcome = authorizationOf(result.transaction);
    switch (outcome.status) {
      case 'authorized':
      case 'captured':
      case 'declined':
      case 'failed':
        return { ...outcome, status: outcome.status };
      case 'pending':
        throw new ConnectorError('timeout', 'Braintree is still authorizing the transaction (AUTHORIZING)');
      default:
        return {
          ...outcome,
          status: 'failed',
          errorCode: 'service_error',
          rawResponseCode: result.transaction.status,
          rawResponseDescription: `Unexpected status ${result.transaction.status}`,
        };
    }
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    const input = {
      transactionId: request.providerTransactionId,
      transaction: { amount: toBraintreeAmount(request.amount, request.currency) },
    };
    const result = dataOf(
      await this.client.call<Record<string, { transaction: BraintreeTransaction } | null>>(
        request.credentials,
        CAPTURE,
        { input },
      ),
      'captureTransaction',
      true,
    );
    if (isFacts(result))
      return { ...result, errorCode: 'capture_declined', status: 'declined', providerCaptureId: null };
    const outcome = authorizationOf(result.transaction);
    if (outcome.status === 'captured')
      return { ...blank, status: 'succeeded', providerCaptureId: result.transaction.id };
    return {
      ...outcome,
      errorCode: outcome.errorCode ?? 'capture_declined',
      rawResponseCode: outcome.rawResponseCode ?? result.transaction.status,
      status: 'declined',
      providerCaptureId: null,
    };
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    const result = dataOf(
      await this.client.call<Record<string, { reversal: { __typename: string; status: string } } | null>>(
        request.credentials,
        REVERSE,
        { input: { transactionId: request.providerTransactionId } },
      ),
      'reverseTransaction',
      true,
    );
    if (isFacts(result)) return { ...result, errorCode: 'void_declined', status: 'declined' };
    if (result.reversal.__typename === 'Transaction' && result.reversal.status === 'VOIDED')
      return { ...blank, status: 'succeeded' };
    return {
      errorCode: 'void_declined',
      rawResponseCode: result.reversal.status,
      rawResponseDescription: `Braintree reversed with a ${result.reversal.__typename}, not a void`,
      status: 'failed',
    };
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const input = {
      transactionId: request.providerTransactionId,
      refund: { amount: toBraintreeAmount(request.amount, request.currency), orderId: request.idempotencyKey },
    };
    const result = dataOf(
      await this.client.call<Record<string, { refund: BraintreeRefund } | null>>(request.credentials, REFUND, {
        input,
      }),
      'refundTransaction',
      true,
    );
    if (isFacts(result)) return { ...result, errorCode: 'refund_declined', status: 'declined', providerRefundId: null };
    const status = refundStatusOf(result.refund.status);
    if (status === 'refunded') return { ...blank, status: 'succeeded', providerRefundId: result.refund.id };
    if (status === 'pending') return { ...blank, status: 'processing', providerRefundId: result.refund.id };
    return {
      errorCode: 'refund_declined',
      rawResponseCode: result.refund.status,
      rawResponseDescription: `Refund ${result.refund.status}`,
      status,
      providerRefundId: result.refund.id,
    };
  }

  sync(request: SyncRequest): Promise<SyncOutcome> {
    return syncOfBraintree(this.client, request);
  }

  /** Stores the card in Braintree's vault (tokenize, then vault the single-use id; Braintree verifies the card when its settings say so). */
  async tokenize(request: TokenizeRequest): Promise<TokenizeOutcome> {
    const failed = (facts: ResponseFacts): TokenizeOutcome => ({
      ...facts,
      status: 'failed',
      token: null,
      approvalUrl: null,
    });
    const single = dataOf(
      await this.client.call<Record<string, { paymentMethod: { id: string } } | null>>(
        request.credentials,
        TOKENIZE_CARD,
        { input: { creditCard: cardInput({ ...request.card }) } },
      ),
      'tokenizeCreditCard',
    );
    if (isFacts(single)) return failed(single);
    type Vaulted = {
      paymentMethod: { id: string } | null;
      verification: { status: string; processorResponse?: { legacyCode?: string; message?: string } | null } | null;
    };
    const vaulted = dataOf(
      await this.client.call<Record<string, Vaulted | null>>(request.credentials, VAULT, {
        input: { paymentMethodId: single.paymentMethod.id },
      }),
      'vaultPaymentMethod',
    );
    if (isFacts(vaulted)) return failed(vaulted);
    const verification = vaulted.verification;
    if (!vaulted.paymentMethod || (verification && verification.status !== 'VERIFIED')) {
      const code = verification?.processorResponse?.legacyCode ?? verification?.status ?? 'NOT_VAULTED';
      return failed({
        errorCode: processorErrorCode(verification?.processorResponse?.legacyCode),
        rawResponseCode: code,
        rawResponseDescription: verification?.processorResponse?.message ?? 'Braintree did not vault the card',
      });
    }
    return { ...blank, status: 'succeeded', token: vaulted.paymentMethod.id, approvalUrl: null };
  }
}

/**
 * `paymentInitiator` of a merchant-initiated payment (Braintree's PaymentInitiator: a recurring or
 * installment series, else unscheduled); a customer-initiated one passes none.
 */
function initiatorOf(request: AuthorizeRequest): { paymentInitiator?: string } {
  if (!request.merchantInitiated) return {};
  return {
    paymentInitiator:
      request.paymentSource === 'recurring'
        ? 'RECURRING'
        : request.paymentSource === 'installment'
          ? 'INSTALLMENT'
          : 'UNSCHEDULED',
  };
}

/**
 * `options.externalVault` of a merchant-initiated payment with a card our vault holds (tokenized
 * for this call, not stored at Braintree): `VAULTED`, with the network transaction id of the
 * customer-initiated payment it follows (`verifyingNetworkTransactionId`). Braintree refuses it for
 * a card in its own vault, and asks for no id on a customer-initiated payment.
 */
function externalVaultOf(
  request: AuthorizeRequest,
): { externalVault: { status: 'VAULTED'; verifyingNetworkTransactionId: string } } | null {
  if (!request.merchantInitiated || !request.previousSchemeTransactionId || request.instrument.kind !== 'card')
    return null;
  return { externalVault: { status: 'VAULTED', verifyingNetworkTransactionId: request.previousSchemeTransactionId } };
}

/** `MM/YY` card → Braintree's CreditCardInput (the number goes to Braintree only). */
function cardInput(card: {
  number: string;
  expirationDate: string;
  securityCode: string | null;
}): Record<string, string> {
  const [month = '', year = ''] = card.expirationDate.split('/');
  return {
    number: card.number,
    expirationMonth: month.padStart(2, '0'),
    expirationYear: year.length === 2 ? `20${year}` : year,
    ...(card.securityCode ? { cvv: card.securityCode } : {}),
  };
}
