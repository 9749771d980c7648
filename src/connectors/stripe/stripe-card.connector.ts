import type { SettlementFetchRequest, SettlementPage } from '../connector-settlements.ts';
import type {
  AuthorizeOutcome,
  AuthorizeRequest,
  CaptureOutcome,
  CaptureRequest,
  CaptureRules,
  PaymentConnector,
  RefundOutcome,
  RefundRequest,
  SyncOutcome,
  SyncRequest,
  TokenizeOutcome,
  TokenizeRequest,
  VerifyOutcome,
  VoidOutcome,
  VoidRequest,
} from '../connector.ts';
import type { InboundWebhookOutcome, InboundWebhookRequest } from '../connector-webhooks.ts';
import { toStripeAmount } from './stripe.amounts.ts';
import { STRIPE_CARD_DEFINITION } from './stripe-card.definition.ts';
import { connectorErrorOf, isMissing, Stripe, stripeClient, type StripeEndpoint } from './stripe.client.ts';
import { errorCodeOf, refundStatusOf, syncStatusOf } from './stripe.mapping.ts';
import {
  createCardPaymentMethod,
  createPaymentIntent,
  networkTransactionIdOf,
  outcomeOfError,
  outcomeOfIntent,
  tokenOf,
} from './stripe-payments.ts';
import { connectRefundParams, connectRequestOptions } from './stripe.connect.ts';
import { parseStripeWebhook } from './stripe.webhooks.ts';
import { fetchStripeSettlements } from './stripe.settlements.ts';
import { verifyStripeCredentials } from './stripe.verify.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const REFUND_REASONS = new Set(['duplicate', 'fraudulent', 'requested_by_customer']);

/** A follow-up call's refusal (a 4xx other than auth) as a declined outcome with our code. */
function refusal(error: unknown, code: 'capture_declined' | 'void_declined' | 'refund_declined') {
  if (
    error instanceof Stripe.errors.StripeCardError ||
    (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 400)
  ) {
    const e = error as Stripe.errors.StripeError;
    return {
      errorCode: e.type === 'card_error' ? errorCodeOf(e.decline_code, e.code) : code,
      rawResponseCode: e.decline_code ?? e.code ?? null,
      rawResponseDescription: e.message ?? null,
    };
  }
  throw connectorErrorOf(error);
}

/**
 * Stripe cards: PaymentIntents with manual capture (or automatic for `intent: capture`), partial
 * and multi-capture, cancel, refunds, retrieve/search for reconciliation, 3DS through Stripe's
 * `next_action`, Customers with PaymentMethods as payment service tokens, and signed webhooks.
 * Every call sends our attempt id as Stripe's `Idempotency-Key`, so a retry never charges twice.
 */
export class StripeCardConnector implements PaymentConnector {
  readonly definition = STRIPE_CARD_DEFINITION;
  readonly parseWebhook = (
    credentials: Record<string, string>,
    request: InboundWebhookRequest,
  ): InboundWebhookOutcome => parseStripeWebhook(credentials, request);

  constructor(private readonly endpoint: StripeEndpoint = { baseUrl: null }) {}

  /** Stripe's payouts and the balance transactions each paid out (stripe.settlements.ts). */
  readonly settlements = async (request: SettlementFetchRequest): Promise<SettlementPage> => {
    const stripe = await this.client(request.credentials);
    try {
      return await fetchStripeSettlements(stripe, request);
    } catch (error) {
      throw connectorErrorOf(error);
    }
  };

  private client(credentials: Record<string, string>): Promise<Stripe> {
    return stripeClient(this.endpoint, credentials.secret_key ?? '');
  }

  captureRules(credentials: Record<string, string>): CaptureRules {
    return { multiCapture: credentials.multi_capture_enabled === 'true', incrementalAuthorization: false };
  }

  async verifyCredentials(credentials: Record<string, string>): Promise<VerifyOutcome> {
    return verifyStripeCredentials(credentials, () => this.client(credentials));
  }

  async authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    const stripe = await this.client(request.credentials);
    try {
      return outcomeOfIntent(
        await createPaymentIntent(stripe, request, this.captureRules(request.credentials).multiCapture),
      );
    } catch (error) {
      return outcomeOfError(error);
    }
  }

  async capture(request: CaptureRequest): Promise<CaptureOutcome> {
    const stripe = await this.client(request.credentials);
    const multi = this.captureRules(request.credentials).multiCapture;
    try {
      const params: Stripe.PaymentIntentCaptureParams = {
        amount_to_capture: toStripeAmount(request.amount, request.currency),
        ...(multi ? { final_capture: request.final } : {}),
        expand: ['latest_charge'],
      };
      const intent = await stripe.paymentIntents.capture(request.providerTransactionId, params, {
        idempotencyKey: request.idempotencyKey,
        ...connectRequestOptions(request.options),
      });
      const done = intent.status === 'succeeded' || (intent.status === 'requires_capture' && !request.final && multi);
      const charge =
        typeof intent.latest_charge === 'object' ? (intent.latest_charge?.id ?? null) : intent.latest_charge;
      return done
        ? { ...blank, status: 'succeeded', providerCaptureId: charge }
        : {
            errorCode: 'capture_declined',
            rawResponseCode: intent.status,
            rawResponseDescription: null,
            status: 'failed',
            providerCaptureId: null,
          };
    } catch (error) {
      return { ...refusal(error, 'capture_declined'), status: 'declined', providerCaptureId: null };
    }
  }

  async void(request: VoidRequest): Promise<VoidOutcome> {
    const stripe = await this.client(request.credentials);
    try {
      const intent = await stripe.paymentIntents.cancel(
        request.providerTransactionId,
        {},
        { idempotencyKey: request.idempotencyKey, ...connectRequestOptions(request.options) },
      );
      return intent.status === 'canceled'
        ? { ...blank, status: 'succeeded' }
        : {
            errorCode: 'void_declined',
            rawResponseCode: intent.status,
            rawResponseDescription: null,
            status: 'failed',
          };
    } catch (error) {
      return { ...refusal(error, 'void_declined'), status: 'declined' };
    }
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const stripe = await this.client(request.credentials);
    const reason =
      request.reason && REFUND_REASONS.has(request.reason)
        ? { reason: request.reason as Stripe.RefundCreateParams.Reason }
        : {};
    try {
      const refund = await stripe.refunds.create(
        {
          payment_intent: request.providerTransactionId,
          amount: toStripeAmount(request.amount, request.currency),
          ...reason,
          ...connectRefundParams(request.options),
          metadata: { attempt_id: request.idempotencyKey, reference: request.reference },
        },
        { idempotencyKey: request.idempotencyKey, ...connectRequestOptions(request.options) },
      );
      const status = refundStatusOf(refund.status);
      const failed =
        status === 'failed'
          ? {
              errorCode: 'refund_declined',
              rawResponseCode: refund.failure_reason ?? refund.status,
              rawResponseDescription: null,
            }
          : blank;
      return { ...failed, status, providerRefundId: refund.id };
    } catch (error) {
      return { ...refusal(error, 'refund_declined'), status: 'declined', providerRefundId: null };
    }
  }

  async sync(request: SyncRequest): Promise<SyncOutcome> {
    const stripe = await this.client(request.credentials);
    try {
      const intent = await this.findIntent(stripe, request);
      if (!intent) return { ...blank, status: 'not_found', providerTransactionId: null };
      if (request.operation === 'refund') return await this.syncRefund(stripe, intent.id, request);
      return this.syncOfIntent(intent, request);
    } catch (error) {
      if (isMissing(error)) return { ...blank, status: 'not_found', providerTransactionId: null };
      throw connectorErrorOf(error);
    }
  }

  async tokenize(request: TokenizeRequest): Promise<TokenizeOutcome> {
    const stripe = await this.client(request.credentials);
    try {
      const paymentMethod = await createCardPaymentMethod(stripe, request.card, request.idempotencyKey);
      // Creating the Customer with the PaymentMethod attaches it (one call, one idempotency key).
      const customer = await stripe.customers.create(
        { payment_method: paymentMethod, metadata: { attempt_id: request.idempotencyKey } },
        { idempotencyKey: request.idempotencyKey },
      );
      return { ...blank, status: 'succeeded', token: tokenOf(customer.id, paymentMethod), approvalUrl: null };
    } catch (error) {
      const refused = outcomeOfError(error);
      return {
        errorCode: refused.errorCode,
        rawResponseCode: refused.rawResponseCode,
        rawResponseDescription: refused.rawResponseDescription,
        status: 'failed',
        token: null,
        approvalUrl: null,
      };
    }
  }

  /** The PaymentIntent by id, or (the authorization got no answer) by the attempt id in its metadata. */
  private async findIntent(stripe: Stripe, request: SyncRequest): Promise<Stripe.PaymentIntent | null> {
    const account = connectRequestOptions(request.options);
    if (request.providerTransactionId)
      return stripe.paymentIntents.retrieve(request.providerTransactionId, { expand: ['latest_charge'] }, account);
    if (request.operation !== 'authorize') return null;
    const found = await stripe.paymentIntents.search(
      { query: `metadata['attempt_id']:'${request.idempotencyKey}'`, limit: 1, expand: ['data.latest_charge'] },
      account,
    );
    return found.data[0] ?? null;
  }

  private syncOfIntent(intent: Stripe.PaymentIntent, request: SyncRequest): SyncOutcome {
    const status = syncStatusOf(intent);
    const error = intent.last_payment_error;
    const codes =
      status === 'declined'
        ? {
            errorCode: errorCodeOf(error?.decline_code, error?.code),
            rawResponseCode: error?.decline_code ?? error?.code ?? null,
            rawResponseDescription: error?.message ?? null,
          }
        : blank;
    if (request.operation === 'capture') {
      // A capture happened when the PaymentIntent is captured, or (multicapture) its received amount covers this capture.
      const received = intent.amount_received >= toStripeAmount(request.amount, request.currency);
      return {
        ...blank,
        status:
          status === 'captured' || (received && intent.amount_received > 0)
            ? 'captured'
            : status === 'voided'
              ? 'failed'
              : 'authorized',
        providerTransactionId: intent.id,
      };
    }
    if (request.operation === 'void')
      return { ...blank, status: status === 'voided' ? 'voided' : 'authorized', providerTransactionId: intent.id };
    const found = {
      ...codes,
      status: request.operation === 'authorize' && status === 'voided' ? 'failed' : status,
      providerTransactionId: intent.id,
    } as const;
    return request.operation === 'authorize'
      ? { ...found, schemeTransactionId: networkTransactionIdOf(intent) }
      : found;
  }

  /** A refund found by the attempt id Stripe keeps in its metadata; none: the call never arrived. */
  private async syncRefund(stripe: Stripe, paymentIntent: string, request: SyncRequest): Promise<SyncOutcome> {
    const refunds = await stripe.refunds.list(
      { payment_intent: paymentIntent, limit: 100 },
      connectRequestOptions(request.options),
    );
    const refund = refunds.data.find((r) => r.metadata?.attempt_id === request.idempotencyKey);
    if (!refund) return { ...blank, status: 'not_found', providerTransactionId: paymentIntent };
    const status = refundStatusOf(refund.status);
    const map = {
      succeeded: 'refunded',
      processing: 'refund_pending',
      failed: 'failed',
      declined: 'declined',
    } as const;
    return {
      ...(status === 'failed'
        ? {
            errorCode: 'refund_declined',
            rawResponseCode: refund.failure_reason ?? refund.status,
            rawResponseDescription: null,
          }
        : blank),
      status: map[status],
      providerTransactionId: paymentIntent,
    };
  }
}
