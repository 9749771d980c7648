import type { RequestContext } from '../../../context.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { NewTransaction, TransactionActionJson, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';
import { AppError, fieldRefusal } from '../../../errors/app-error.ts';
import { isProduction, sandboxOnly } from '../../../errors/sandbox-only.ts';
import { findBuyerRow, shippingDetailsSnapshot } from '../../buyers/buyer-snapshots.service.ts';
import { matchThreeDsScenario } from '../../three-ds-scenarios/three-ds-scenarios.service.ts';
import {
  decideAntiFraud,
  type AntiFraudDecisionEvent,
  type AntiFraudResult,
} from '../../anti-fraud-services/anti-fraud-decision.service.ts';
import { antiFraudOrderOf } from './anti-fraud-order.ts';
import { requireEmbedBuyerCard } from './embed-buyer.ts';
import type { CreateTransactionBody } from '../create-transaction.schema.ts';
import type { ResolvedInstrument } from './instrument.ts';
import { intentOutcome, nextStatus } from '../transaction-status.ts';
import type { FailoverPlan } from '../routing/failover.ts';
import { applyFlows, declineEarly } from './apply-flows.ts';
import { blocklistFacts, blocklistStop } from './blocklist-stop.ts';
import {
  decideThreeDs,
  passThrough,
  type ChallengeOutcomes,
  type ThreeDsDecision,
} from '../three-ds/three-d-secure.ts';
import type { Applied } from '../outcomes.ts';
import { EXTRA_FIELDS } from '../transaction.schema.ts';
import type { VelocityCheck } from '../../velocity/velocity.service.ts';
import { cardTestingCheck, sourcesOf, type CardTestingCheck } from '../../card-testing/card-testing.service.ts';
import { cardTestingStop } from './card-testing-stop.ts';

/** Everything decided before the connector is called. */
export interface Prepared {
  columns: Omit<NewTransaction, 'id' | 'merchant_account_id'>;
  /** Null for a transaction paid by gift cards only. */
  service: PaymentServiceRow | null;
  connectorOptions: Record<string, unknown> | null;
  threeDs: ThreeDsDecision | null;
  /** Set when the transaction ends before any connector call (anti-fraud reject, failed 3DS). */
  stop: ((row: TransactionRow) => Applied) | null;
  /** Set when the 3DS server challenges the card: the connector waits for the buyer's challenge. */
  challenge: ChallengeOutcomes | null;
  /** The matched route-transaction rule's failover plan (create-transaction.service.ts `cascade`). */
  plan: FailoverPlan | null;
  flow: TransactionActionJson['flow'] | null;
  /** The success-rate dimension keys its authorizations count under (empty: not counted). */
  routingKeys: readonly string[];
  /** The velocity check whose counts the transaction's decline adds to (null: the account has no velocity rule). */
  velocity: VelocityCheck | null;
  /** The card-testing guard's check (null: off, or no card); settled after the answer. */
  cardTesting: CardTestingCheck | null;
  /** The transaction event of a configured anti-fraud service's decision, written with the answer. */
  antiFraudEvent: AntiFraudDecisionEvent | null;
}

/** What made a transaction besides its request: a payment link's hosted page (`paymentLinkId`). */
export interface TransactionOrigin {
  paymentLinkId?: string | null;
}

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

/** `stored`: the stored card paid with (by id or through a checkout session) and its buyer. */
export async function buyerSnapshot(
  tx: Executor,
  ctx: RequestContext,
  body: CreateTransactionBody,
  stored: { id: string; owner: string | null } | null,
) {
  const owner = stored?.owner ?? null;
  const form = body.payment_method as
    | { buyer_id?: string | null; buyer_external_identifier?: string | null }
    | undefined;
  // A stored card of a buyer pays for that buyer unless the request names one.
  const buyerId =
    body.buyer_id ??
    form?.buyer_id ??
    (body.buyer_external_identifier || form?.buyer_external_identifier ? null : owner);
  const external = body.buyer_external_identifier ?? form?.buyer_external_identifier ?? null;
  if (!buyerId && !external && stored) requireEmbedBuyerCard(ctx, stored, null);
  if (buyerId || external) {
    const row = await findBuyerRow(tx, ctx, buyerId ? { id: buyerId } : { externalIdentifier: external! });
    if (stored) requireEmbedBuyerCard(ctx, stored, row.id);
    if (owner && owner !== row.id)
      throw fieldRefusal(
        'body',
        '/buyer_id',
        'Must be the buyer of the stored payment method',
        'value_error',
        'The stored payment method belongs to another buyer than the one this transaction names',
      );
    const snapshot = {
      id: row.id,
      display_name: row.display_name,
      external_identifier: row.external_identifier,
      account_number: row.account_number,
      billing_details: row.billing_details,
    };
    const shipping = body.shipping_details_id
      ? await shippingDetailsSnapshot(tx, ctx, row.id, body.shipping_details_id)
      : null;
    return { buyerId: row.id, snapshot, shipping };
  }
  if (body.shipping_details_id)
    throw new AppError(
      'bad_request',
      'shipping_details_id needs a stored buyer: send buyer_id or buyer_external_identifier',
    );
  if (!body.buyer) return { buyerId: null, snapshot: null, shipping: null };
  const { shipping_details: shipping, ...guest } = body.buyer;
  return {
    buyerId: null,
    snapshot: { id: null, ...guest },
    shipping: shipping ? { id: null, buyer_id: null, ...shipping } : null,
  };
}

/** The names in a buyer's billing details that a simulated 3DS scenario can match. */
interface BillingNames {
  first_name?: string | null;
  last_name?: string | null;
  email_address?: string | null;
}

async function threeDsFor(
  tx: Executor,
  ctx: RequestContext,
  body: CreateTransactionBody,
  instrument: ResolvedInstrument,
  service: PaymentServiceRow,
  buyer: { billing_details?: unknown } | null,
  skip: boolean,
): Promise<ThreeDsDecision | null> {
  if (body.three_d_secure_data)
    return passThrough(body.three_d_secure_data, body.three_d_secure?.amount ?? body.amount);
  if (skip || !service.three_d_secure_enabled || instrument.method !== 'card' || body.merchant_initiated) return null;
  // Production never runs the simulated 3DS server: the provider authenticates, or the payment is refused.
  if (isProduction(ctx.deps.config)) return productionThreeDs(ctx, service);
  const billing = (buyer?.billing_details ?? null) as BillingNames | null;
  const scenario = await matchThreeDsScenario(tx, ctx.deps, ctx.merchantAccountId, {
    amount: body.amount,
    cardNumber: instrument.cardNumber,
    externalIdentifier: body.external_identifier ?? null,
    buyer: billing
      ? {
          firstName: billing.first_name ?? null,
          lastName: billing.last_name ?? null,
          emailAddress: billing.email_address ?? null,
        }
      : null,
  });
  return decideThreeDs(
    scenario,
    instrument.cardNumber,
    body.three_d_secure?.amount ?? body.amount,
    `${ctx.merchantAccountId}:${instrument.fingerprint ?? instrument.last4}:${Date.now()}`,
  );
}

/**
 * Production, 3DS enabled and no `three_d_secure_data`: a provider that authenticates cards itself
 * is left to do so (null: no 3DS data sent); any other is refused before anything is written.
 */
function productionThreeDs(ctx: RequestContext, service: PaymentServiceRow): null {
  if (ctx.deps.connectors.find(service.payment_service_definition_id)?.definition.capabilities.providerAuthentication)
    return null;
  throw sandboxOnly(
    'The 3DS server',
    `the payment service ${service.id} (${service.payment_service_definition_id}) has three_d_secure_enabled but its provider does not authenticate cards itself: send three_d_secure_data from your own 3DS server, or turn three_d_secure_enabled off`,
  );
}

/** A transaction that ends before the connector: declined with `errorCode`. */
export const stopWith =
  (errorCode: string) =>
  (row: TransactionRow): Applied => {
    const status = nextStatus(row.status, 'authorization_declined');
    return {
      attemptStatus: 'declined',
      eventName: 'transaction-updated-status',
      patch: { status, intent_outcome: intentOutcome(row.intent, status), error_code: errorCode },
    };
  };

/** A redirect method names its own currency and country: they must agree with the transaction's. */
function checkRedirect(body: CreateTransactionBody, instrument: ResolvedInstrument): string | null {
  if (instrument.instrument.kind !== 'redirect') return body.country ?? null;
  const { currency, country } = instrument.instrument;
  if (currency !== body.currency)
    throw new AppError(
      'bad_request',
      `payment_method.currency (${currency}) must equal the transaction's currency (${body.currency})`,
    );
  if (body.country && body.country !== country)
    throw new AppError(
      'bad_request',
      `payment_method.country (${country}) must equal the transaction's country (${body.country})`,
    );
  return country;
}

/** `instrument` null: the gift cards pay the whole amount (no payment method, no payment service). */
export async function prepareTransaction(
  tx: Executor,
  ctx: RequestContext,
  body: CreateTransactionBody,
  instrument: ResolvedInstrument | null,
  ipAddress: string | null,
  transactionId: string,
  origin: TransactionOrigin = {},
  remoteCalls = false,
  screened: AntiFraudResult | null = null,
): Promise<Prepared> {
  const country = instrument ? checkRedirect(body, instrument) : (body.country ?? null);
  body = { ...body, country };
  const stored = instrument?.paymentMethodId
    ? { id: instrument.paymentMethodId, owner: instrument.ownerBuyerId }
    : null;
  const buyer = await buyerSnapshot(tx, ctx, body, stored);
  // `remoteCalls`: `tx` is the pool, not an open database transaction, so a configured anti-fraud
  // service may be called over the network (STYLE D4; decision 0139). `screened`: it was asked
  // before the database transaction opened (screen-before-transaction.ts, decision 0144).
  const antiFraud =
    screened ??
    (await decideAntiFraud(tx, ctx, antiFraudOrderOf(transactionId, body, instrument, buyer.snapshot, ipAddress), {
      remote: remoteCalls,
      connectionOptions: body.connection_options,
    }));
  const fraud = antiFraud.decision;
  const buyerExternalIdentifier = (buyer.snapshot?.external_identifier as string | null | undefined) ?? null;
  // The blocklist comes first: a blocked payment is not routed, authenticated or sent anywhere.
  const facts = blocklistFacts(instrument, country, buyer.snapshot, buyerExternalIdentifier, ipAddress);
  const blocked = await blocklistStop(tx, ctx, instrument, facts);
  const email =
    (buyer.snapshot as { billing_details?: { email_address?: string | null } | null } | null)?.billing_details
      ?.email_address ?? null;
  const velocityKeys = { buyer: buyer.buyerId, email_address: email, ip_address: ipAddress };
  // The card-testing guard next (decision 0138): a throttled source is not routed either.
  const cardTesting =
    instrument && !blocked
      ? await cardTestingCheck(ctx, tx, {
          sources: sourcesOf(
            ctx,
            { ipAddress, buyerId: buyer.buyerId, buyerExternalIdentifier },
            instrument.checkoutSessionId,
          ),
          cardFingerprint: instrument.fingerprint,
          amount: body.amount,
          currency: body.currency,
        })
      : null;
  const suspected = cardTesting?.stop ? cardTesting : null;
  const flows =
    instrument && !blocked && !suspected
      ? await applyFlows(tx, ctx, {
          body,
          instrument,
          antiFraudDecision: fraud,
          buyerExternalIdentifier,
          transactionId,
          velocityKeys,
        })
      : null;
  const service = flows?.service ?? null;
  const threeDs =
    instrument && service ? await threeDsFor(tx, ctx, body, instrument, service, buyer.snapshot, flows!.skip3ds) : null;
  const stop = blocked
    ? blocked.stop
    : suspected
      ? cardTestingStop(suspected.stop!)
      : flows?.declined
        ? declineEarly(flows.declined)
        : fraud === 'reject'
          ? stopWith('anti_fraud_rejected')
          : threeDs?.kind === 'failed'
            ? stopWith(threeDs.errorCode ?? 'three_d_secure_authentication_failed')
            : null;
  const extra: Record<string, unknown> = Object.fromEntries(
    EXTRA_FIELDS.filter((k) => body[k] !== undefined && body[k] !== null).map((k) => [k, body[k]]),
  );
  // Kept for the approval page, which sends the buyer back there (not part of the resource).
  if (instrument?.redirectUrl) extra.redirect_url = instrument.redirectUrl;
  // Kept for the transaction's client session (POST /transactions/{id}/session), which answers for it.
  if (body.integration_client) extra.integration_client = body.integration_client;
  const columns: Prepared['columns'] = {
    status: 'processing',
    intent: body.intent ?? 'authorize',
    // Null until the answer (or a stop) writes the outcome: the row stays out of the filter indexes
    // while it awaits its connector (decision 0154).
    intent_outcome: null,
    currency: body.currency,
    country: body.country ?? null,
    amount: body.amount,
    method: instrument?.method ?? 'gift-card',
    instrument_type: instrument?.instrumentType ?? null,
    payment_method_id: instrument?.paymentMethodId ?? null,
    payment_method: json(instrument?.snapshot),
    card_fingerprint: instrument?.fingerprint ?? null,
    payment_service_id: service?.id ?? null,
    payment_service: service
      ? json({
          type: 'payment-service',
          id: service.id,
          payment_service_definition_id: service.payment_service_definition_id,
          method: service.method,
          display_name: service.display_name,
        })
      : null,
    buyer_id: buyer.buyerId,
    buyer: json(buyer.snapshot),
    buyer_external_identifier: buyerExternalIdentifier,
    buyer_email_address: email,
    shipping_details: json(buyer.shipping),
    checkout_session_id: instrument?.checkoutSessionId ?? null,
    payment_link_id: origin.paymentLinkId ?? null,
    ip_address: ipAddress,
    external_identifier: body.external_identifier ?? null,
    anti_fraud_decision: fraud,
    anti_fraud_service_id: antiFraud.serviceId,
    pending_review: fraud === 'review',
    payment_source: body.payment_source ?? 'ecommerce',
    merchant_initiated: body.merchant_initiated ?? false,
    // A method approved on the provider's page is stored when the approved payment is authorized (settleAttempt).
    store_on_approval: (body.store ?? false) && instrument?.instrumentType === 'redirect',
    is_subsequent_payment: body.is_subsequent_payment ?? false,
    account_funding_transaction: body.account_funding_transaction ?? false,
    metadata: json(body.metadata),
    cart_items: json(body.cart_items),
    airline: json(body.airline),
    statement_descriptor: json(body.statement_descriptor),
    three_d_secure: json(threeDs?.summary),
    recipient: json(body.recipient),
    extra: JSON.stringify(extra),
    connection_options: json(body.connection_options),
    actions: JSON.stringify(blocked ? [blocked.action] : suspected ? [suspected.action] : (flows?.actions ?? [])),
  };
  const connectorOptions = service
    ? ((body.connection_options?.[service.payment_service_definition_id] as Record<string, unknown> | undefined) ??
      null)
    : null;
  const challenge = threeDs?.kind === 'challenge' && threeDs.challenge ? threeDs.challenge : null;
  return {
    columns,
    service,
    connectorOptions,
    threeDs,
    stop,
    challenge,
    plan: flows?.plan ?? null,
    flow: flows?.flow ?? null,
    routingKeys: flows?.routingKeys ?? [],
    velocity: flows?.velocity ?? null,
    cardTesting,
    antiFraudEvent: antiFraud.event,
  };
}
