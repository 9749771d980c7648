import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/cli/token.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { roleId } from '../../src/modules/roles/roles.catalogue.ts';
import { emitEvent } from '../../src/modules/events/events.service.ts';
import { evaluateMetric } from '../../src/modules/monitoring/evaluate.service.ts';
import { settleRefund, settleTransaction } from '../../src/modules/transactions/settlements/settlements.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { createTestKeyPair, type TestKeyPair } from '../helpers/tokens.ts';

/**
 * Cross-merchant isolation over every route, generated from the route table: merchant account A
 * owns one resource of each kind, and each credential limited to merchant account B (a key pair
 * limited to B, a token of an instance-wide key pair whose `merchant_account_id` claim is B, an
 * embed token pinned to B that also lists `*.read` and `*.write`) tries every operation on them.
 * A new route whose path parameter or body has no entry below fails this test until one is added,
 * so no route escapes the check.
 */

/** Creates, in merchant account A, the resource a path parameter names; returns its id. */
type Fixture = (t: TestApp, a: string) => Promise<string>;

const FIXTURES: Record<string, Fixture> = {
  merchant_account_id: async (_t, a) => a,
  three_ds_configuration_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: `/merchant-accounts/${a}/three-ds-configurations`,
      payload: THREE_DS_BODY,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  api_key_pair_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/api-key-pairs',
      payload: { display_name: 'owned by A', merchant_account_id: a },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  buyer_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/buyers', payload: BUYER_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  payment_method_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/payment-methods', payload: CARD_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // Fixtures run in this order: the network token belongs to the payment method above.
  network_token_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: `/payment-methods/${ids.payment_method_id}/network-tokens`,
      payload: NETWORK_TOKEN_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  session_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/checkout/sessions',
      payload: { amount: 1299, currency: 'EUR', metadata: { owner: 'A' } },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  blocklist_entry_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/blocklist-entries',
      payload: { value_type: 'email_address', value: 'owner-a@example.com' },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  anti_fraud_service_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/anti-fraud-services',
      payload: ANTI_FRAUD_SERVICE_BODY(),
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  three_ds_scenario_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/three-ds-scenarios',
      payload: THREE_DS_SCENARIO_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  payment_service_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/payment-services',
      payload: PAYMENT_SERVICE_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // After payment_method_id and payment_service_id: A's card tokenized at A's service.
  payment_service_token_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: `/payment-methods/${ids.payment_method_id}/payment-service-tokens`,
      payload: { payment_service_id: ids.payment_service_id, redirect_url: 'https://a.example/return' },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // After payment_service_id: A's transaction goes through A's mock-card service, is captured and
  // partly refunded, and is settled, so its capture, refund and settlement exist too.
  transaction_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      payload: {
        amount: 1000,
        currency: PAYMENT_SERVICE_BODY.accepted_currencies[0],
        payment_method: { ...CARD_BODY, security_code: '123' },
      },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    const captured = await t.request({
      method: 'POST',
      url: `/transactions/${res.json().id}/capture`,
      payload: {},
      merchantAccountId: a,
    });
    expect(captured.json().transaction.status).toBe('capture_succeeded');
    return res.json().id;
  },
  // After payment_method_id and payment_service_id: a payout to A's stored card through A's service.
  payout_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/payouts',
      payload: {
        amount: 500,
        currency: PAYMENT_SERVICE_BODY.accepted_currencies[0],
        payment_service_id: ids.payment_service_id,
        payment_method: { id: ids.payment_method_id },
      },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('succeeded');
    return res.json().id;
  },
  // Before subscription_id: its payment-link.created event must not add a delivery to A's subscription.
  payment_link_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/payment-links',
      payload: { amount: 700, currency: 'EUR', country: 'GB', external_identifier: 'link-of-a' },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  digital_wallet_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/digital-wallets',
      payload: {
        provider: 'apple',
        merchant_name: 'A shop',
        accept_terms_and_conditions: true,
        domain_names: ['a.example.com'],
      },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  capture_id: async (t, a) => {
    const res = await t.request({
      method: 'GET',
      url: `/transactions/${ids.transaction_id}/captures`,
      merchantAccountId: a,
    });
    expect(res.json().items).toHaveLength(1);
    return res.json().items[0].id;
  },
  refund_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: `/transactions/${ids.transaction_id}/refunds`,
      payload: { amount: 100 },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  settlement_id: async (t, a) => {
    await settleTransaction(t.deps, a, ids.transaction_id!);
    const res = await t.request({
      method: 'GET',
      url: `/transactions/${ids.transaction_id}/settlements`,
      merchantAccountId: a,
    });
    expect(res.json().items).toHaveLength(1);
    return res.json().items[0].id;
  },
  // Named :settlement_id in its route's path, like a capture's settlement (see ROUTE_FIXTURES).
  refund_settlement_id: async (t, a) => {
    await settleRefund(t.deps, a, ids.transaction_id!, ids.refund_id!);
    const res = await t.request({
      method: 'GET',
      url: `/transactions/${ids.transaction_id}/refund-settlements`,
      merchantAccountId: a,
    });
    expect(res.json().items).toHaveLength(1);
    return res.json().items[0].id;
  },
  // Insights: sources, metrics and modules are names; presets, monitoring metrics and incidents are A's.
  source: async () => 'authorization',
  metric: async () => 'auth_rate',
  module: async () => 'error_code',
  preset_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/metrics-explorer/authorization/presets',
      payload: { display_name: 'of A', metric: 'auth_rate', filters: { currency: ['EUR'] } },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id;
  },
  // After transaction_id and before subscription_id (its incident's event has no delivery): A's metric sees A's approved transaction, which breaches alert_gt, so an incident opens.
  metric_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/monitoring/metrics',
      payload: MONITORING_METRIC_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  incident_id: async (t, a) => {
    expect(await evaluateMetric(t.deps, a, ids.metric_id!, new Date())).toBe(true);
    const res = await t.request({ method: 'GET', url: '/monitoring/incidents', merchantAccountId: a });
    expect(res.json().items).toHaveLength(1);
    return res.json().items[0].id;
  },
  // After incident_id (its rate counts A's approved payment alone) and before subscription_id (no
  // delivery of its event): A's redirect payment waiting for its buyer, with a session token.
  session_transaction_id: async (t, a) => {
    const service = await t.request({
      method: 'POST',
      url: '/payment-services',
      payload: {
        display_name: 'Bank of A',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'a-bank' }],
        accepted_currencies: ['EUR'],
        accepted_countries: ['GB'],
      },
      merchantAccountId: a,
    });
    expect(service.statusCode, service.body).toBe(201);
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      payload: {
        amount: 600,
        currency: 'EUR',
        country: 'GB',
        payment_method: { method: 'paybybank', country: 'GB', currency: 'EUR', redirect_url: 'https://a.example/back' },
      },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'buyer_approval_pending', session_token: expect.any(String) });
    sessionTokenOfA = res.json().session_token;
    return res.json().id;
  },
  // The connector catalogue is instance-wide: nobody owns a definition (see CATALOGUE_PARAMS).
  payment_service_definition_id: async () => 'mock-card',
  // Fixtures run in this order: the shipping details belong to the buyer above.
  shipping_details_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: `/buyers/${ids.buyer_id}/shipping-details`,
      payload: SHIPPING_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // A's once report ran (before the webhook subscription, so the queue run delivers nothing): its
  // execution has a file B must not reach.
  report_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/reports',
      payload: {
        name: 'Report of A',
        schedule: 'once',
        schedule_enabled: true,
        spec: { model: 'transactions', params: {} },
      },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    await t.deps.queue.drain(t.deps);
    return res.json().id;
  },
  report_execution_id: async (t, a) => {
    const res = await t.request({ method: 'GET', url: `/reports/${ids.report_id}/executions`, merchantAccountId: a });
    expect(res.json().items).toMatchObject([{ status: 'succeeded' }]);
    return res.json().items[0].id;
  },
  subscription_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/webhook-subscriptions',
      payload: WEBHOOK_SUBSCRIPTION_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // After subscription_id: one event of A delivered to A's subscription (emitted as the engine does).
  delivery_id: async (t, a) => {
    await withTransaction(t.deps.db, (tx) =>
      emitEvent(tx, t.deps, {
        merchantAccountId: a,
        kind: 'transaction.created',
        resourceType: 'transaction',
        resourceId: 'tx-of-a',
        payload: { id: 'tx-of-a' },
      }),
    );
    const res = await t.request({
      method: 'GET',
      url: `/webhook-subscriptions/${ids.subscription_id}/deliveries`,
      merchantAccountId: a,
    });
    expect(res.json().items).toHaveLength(1);
    return res.json().items[0].id;
  },
  // Flows and their actions are names, not resources: the rule is what merchant account A owns.
  flow: async () => 'card-transaction',
  action: async () => 'route-transaction',
  // After payment_service_id: A's rule routes to A's service.
  rule_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/route-transaction/rules',
      payload: { conditions: [], outcome: { payment_service_ids: [ids.payment_service_id] } },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  config_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/vault-forward/configs',
      payload: { definition_id: 'custom', hosts: ['hooks.example.com'] },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // After config_id: a signing method of A's config, its secret sealed.
  authentication_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: `/vault-forward/configs/${ids.config_id}/authentications`,
      payload: VAULT_FORWARD_SIGNATURE_BODY,
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  user_id: async (t, a) => {
    const res = await t.request({
      method: 'POST',
      url: '/users',
      payload: { email_address: `user-of-a-${uuidv7()}@a.example`, roles: [{ role_id: roleId('analyst') }] },
      merchantAccountId: a,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  gift_card_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/gift-cards', payload: GIFT_CARD_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
};
/** The session token of A's redirect payment (`session_transaction_id`). */
let sessionTokenOfA = '';

const MONITORING_METRIC_BODY = {
  display_name: 'Rate of A',
  spec: { model: 'auth_rate', params: { filters: { datetime_range: 'PT60M/now' } } },
  alerting_policy: { strategy: 'threshold', params: { alert_gt: 0.5, alert_lt: null } },
  incident_policy: null,
};

const PAYMENT_SERVICE_BODY = {
  display_name: 'Service of A',
  payment_service_definition_id: 'mock-card',
  fields: [
    { key: 'merchant_id', value: 'a-merchant' },
    { key: 'api_key', value: 'sk_of_a' },
  ],
  accepted_currencies: ['EUR'],
  accepted_countries: ['GB'],
  payment_method_tokenization_enabled: true,
};
/** Routes whose path parameter has the name of another resource's (the spec's names): the fixture they take instead. */
const ROUTE_FIXTURES: Record<string, Record<string, string>> = {
  '/transactions/:transaction_id/refund-settlements/:settlement_id': { settlement_id: 'refund_settlement_id' },
  '/transactions/:transaction_id/session': { transaction_id: 'session_transaction_id' },
};
const fixtureOf = (url: string, param: string) => ROUTE_FIXTURES[url]?.[param] ?? param;
/** Path parameters naming instance-wide catalogue entries, not resources of merchant account A. */
const CATALOGUE_PARAMS = new Set(['payment_service_definition_id', 'flow', 'action', 'source', 'metric', 'module']);
const CARD_BODY = { method: 'card', number: '4111111111111111', expiration_date: '12/39' };
const GIFT_CARD_BODY = { number: '6036281000000000001', pin: '1234' };
const NETWORK_TOKEN_BODY = { merchant_initiated: false, is_subsequent_payment: false };
const BUYER_BODY = {
  display_name: 'Buyer of A',
  external_identifier: 'buyer-a',
  billing_details: { first_name: 'Ada', email_address: 'ada@a.example' },
};
const WEBHOOK_SUBSCRIPTION_BODY = {
  url: 'https://hooks.example.com/a',
  authentication: { kind: 'basic', username: 'a', password: 'pw-of-a' },
};
const VAULT_FORWARD_SIGNATURE_BODY = {
  kind: 'signature',
  display_name: 'Signing of A',
  fields: [
    { key: 'key_id', value: 'a-1' },
    { key: 'secret', value: 'secret-of-a-0123456789-0123456789' },
  ],
};
const SHIPPING_BODY = { first_name: 'Ada', address: { line1: '1 A Street', country: 'GB' } };

const THREE_DS_SCENARIO_BODY = {
  conditions: { amount: 1299, card_number: '4111111111111111' },
  outcome: { version: '2.2.0', authentication: { transaction_status: 'Y' } },
};

const THREE_DS_BODY = {
  merchant_acquirer_bin: '411111',
  merchant_acquirer_id: 'acq-1',
  merchant_name: 'Merchant A',
  merchant_country_code: '826',
  merchant_category_code: '5999',
  merchant_url: 'https://a.example',
  scheme: 'visa',
  currency: 'GBP',
  metadata: {},
};

/** A valid body per operation, so the request reaches the tenancy check instead of stopping at validation. */
const ANTI_FRAUD_SERVICE_BODY = () => ({
  anti_fraud_service_definition_id: 'riskified-anti-fraud',
  display_name: 'Riskified',
  active: false,
  fields: [
    { key: 'shop_domain', value: 'shop.example' },
    { key: 'auth_token', value: 'tenancy-auth-token-0123' },
  ],
});

const BODIES: Record<string, () => unknown> = {
  createMerchantAccount: () => ({ id: `b-${uuidv7().slice(-8)}`, display_name: 'B made this' }),
  updateMerchantAccount: () => ({ display_name: 'taken over' }),
  createThreeDsConfiguration: () => ({ ...THREE_DS_BODY, scheme: 'mastercard' }),
  editThreeDsConfiguration: () => ({ merchant_name: 'taken over' }),
  createApiKeyPair: () => ({ display_name: 'made by B' }),
  updateApiKeyPair: () => ({ display_name: 'taken over', active: false }),
  // No external_identifier: the same body is sent by two credentials, and the second would be a duplicate.
  addBuyer: () => ({ display_name: 'B made this', billing_details: BUYER_BODY.billing_details }),
  updateBuyer: () => ({ display_name: 'taken over' }),
  addBuyerShippingDetails: () => ({ ...SHIPPING_BODY, first_name: 'B made this' }),
  updateBuyerShippingDetails: () => ({ first_name: 'taken over' }),
  createPaymentMethod: () => ({ ...CARD_BODY, buyer_id: ids.buyer_id }),
  // A's card named by B: 404, and its expiry and scheme transaction id stay.
  updatePaymentMethod: () => ({
    expiration_date: '03/41',
    scheme_transaction_id: 'taken-over',
    transaction_link_id: 'b',
  }),
  // A's card named by B: it does not qualify, so B gets 204 and A's card gets no inquiry.
  createAccountUpdaterJob: () => ({ payment_method_ids: [ids.payment_method_id] }),
  // A's payment service and buyer named by B: 404, no session of B pointing at them.
  createCheckoutSession: () => ({
    amount: 1,
    currency: 'USD',
    payment_service_id: ids.payment_service_id,
    buyer_id: ids.buyer_id,
  }),
  createDigitalWallet: () => ({ provider: 'apple', merchant_name: 'B made this', accept_terms_and_conditions: true }),
  updateDigitalWallet: () => ({ merchant_name: 'taken over', domain_names: null }),
  registerDigitalWalletDomain: () => ({ domain_name: 'b.example.com' }),
  unregisterDigitalWalletDomain: () => ({ domain_name: 'a.example.com' }),
  createApplePayDigitalWalletSession: () => ({
    validation_url: 'https://apple-pay-gateway.apple.com/paymentservices/paymentSession',
    domain_name: 'a.example.com',
  }),
  createGooglePayDigitalWalletSession: () => ({ origin_domain: 'a.example.com' }),
  // B has no Paze wallet (400); a session of A's used by B is refused too (paze-sessions.test.ts).
  createPazeDigitalWalletSession: () => ({ domain_name: 'a.example.com' }),
  createPazeDigitalWalletCheckout: () => ({
    client: { id: 'c', name: 'n', profileId: 'p' },
    sessionId: 's',
    accessToken: 'a',
    callbackURLScheme: 'app',
    intent: 'REVIEW_AND_PAY',
  }),
  reviewPazeDigitalWalletSession: () => ({ sessionId: 's', code: 'c', accessToken: 'a' }),
  completePazeDigitalWalletSession: () => ({
    sessionId: 's',
    code: 'c',
    accessToken: 'a',
    transactionType: 'PURCHASE',
  }),
  updateCheckoutSession: () => ({ amount: 1, metadata: { owner: 'B' } }),
  createCheckoutSessionFields: () => ({ payment_method: { method: 'id', id: ids.payment_method_id } }),
  updateCheckoutSessionFields: () => ({ payment_method: { ...CARD_BODY, number: '5555555555554444' } }),
  createPaymentMethodNetworkToken: () => NETWORK_TOKEN_BODY,
  suspendPaymentMethodNetworkToken: () => ({}),
  resumePaymentMethodNetworkToken: () => ({}),
  createPaymentMethodNetworkTokenCryptogram: () => ({ merchant_initiated: false }),
  // A's card and A's service named by B: 404 (the card is looked up first), and A's card is never sent.
  createPaymentMethodPaymentServiceToken: () => ({
    payment_service_id: ids.payment_service_id,
    redirect_url: 'https://b.example/return',
  }),
  // B has no payment services: an empty list, never A's.
  listPaymentOptions: () => ({ currency: 'EUR', country: 'GB' }),
  // POST /payment-services is `createPaymentService`, PUT is `updatePaymentService` (the original client library swaps them).
  createPaymentService: () => ({
    ...PAYMENT_SERVICE_BODY,
    display_name: 'B made this',
    fields: [{ key: 'merchant_id', value: 'b-merchant' }],
  }),
  updatePaymentService: () => ({ display_name: 'taken over', fields: [{ key: 'merchant_id', value: 'b-merchant' }] }),
  updatePaymentServiceFeeSchedule: () => ({ entries: [{ percent: '0' }] }),
  // A's service named by B: 404, and A's stored secret is never opened for B.
  verifyPaymentServiceCredentials: () => ({
    payment_service_definition_id: 'mock-card',
    payment_service_id: ids.payment_service_id,
    fields: [],
  }),
  createPaymentServiceSession: () => ({}),
  createPaymentServiceDefinitionSession: () => ({}),
  // A's buyer named by B: 404 for both credentials (the same card stored twice in B would be 409).
  createGiftCard: () => ({ ...GIFT_CARD_BODY, buyer_id: ids.buyer_id }),
  listGiftCardBalances: () => ({ items: [{ id: ids.gift_card_id }] }),
  // A's buyer named by B: 404 before the gift card service is called (nothing is activated).
  createGiftCardActivation: () => ({ number: '6036282000000000001', pin: '1234', store: true, buyer_id: ids.buyer_id }),
  // Issued in B, naming nothing of A.
  createGiftCardIssuance: () => ({ theme: 'birthday', amount: 100, currency: 'USD' }),
  createThreeDsScenario: () => THREE_DS_SCENARIO_BODY,
  // A's transaction (404) and stored card (the import's 400 for that line) named by B: never A's fingerprint.
  createAntiFraudService: () => ANTI_FRAUD_SERVICE_BODY(),
  createBlocklistEntry: () => ({ value_type: 'card_fingerprint', transaction_id: ids.transaction_id }),
  importBlocklistEntries: () => ({
    entries: [{ value_type: 'card_fingerprint', payment_method_id: ids.payment_method_id }],
  }),
  // A's stored card named by B: 404 (B's own payment services never see it).
  createTransaction: () => ({
    amount: 100,
    currency: 'USD',
    payment_method: { method: 'id', id: ids.payment_method_id },
  }),
  updateTransaction: () => ({ metadata: { owner: 'B' } }),
  captureTransaction: () => ({}),
  incrementTransactionAuthorization: () => ({ amount: 1 }),
  voidTransaction: () => ({}),
  approveTransactionReview: () => ({}),
  declineTransactionReview: () => ({}),
  cancelTransaction: () => ({}),
  syncTransaction: () => ({}),
  updateTransactionSession: () => ({}),
  createTransactionRefund: () => ({ amount: 1 }),
  createFullTransactionRefund: () => ({}),
  createWebhookSubscription: () => ({ url: 'https://hooks.example.com/b' }),
  // A's subscription named by B: 404, and A's URL, secret and password stay as they were.
  updateWebhookSubscription: () => ({
    url: 'https://hooks.example.com/taken-over',
    active: false,
    authentication: null,
  }),
  rotateWebhookSubscriptionSecret: () => ({}),
  // A's pending delivery named by B: 404, and it is not sent again.
  retryWebhookDelivery: () => ({}),
  // A's service named by B: 404; B's rules never name A's services.
  createFlowRule: () => ({ conditions: [], outcome: { payment_service_ids: [ids.payment_service_id] } }),
  updateFlowRule: () => ({ enabled: false, outcome: { payment_service_ids: [ids.payment_service_id] } }),
  // A's rule named by B: 404, and A's order stays.
  reorderFlowRules: () => ({ rule_ids: [ids.rule_id] }),
  // A's card named by B (HEADERS): refused before anything is sent.
  forwardVaultRequest: () => ({ n: '{{CARD_NUMBER_1}}' }),
  // B's rules and services only: nothing of A in the answer.
  dryRunFlow: () => ({
    amount: 100,
    currency: 'EUR',
    country: 'GB',
    payment_method: { method: 'card', bin: '411111' },
  }),
  // A's stored card and A's service named by B: 404, and nothing is paid out.
  createPayout: () => ({
    amount: 100,
    currency: 'USD',
    payment_service_id: ids.payment_service_id,
    payment_method: { method: 'id', id: ids.payment_method_id },
  }),
  // A's presets, metrics and incidents named by B: 404, and they stay as they were.
  createMetricsExplorerPreset: () => ({ display_name: 'made by B', metric: 'transactions', filters: {} }),
  updateMetricsExplorerPreset: () => ({ display_name: 'taken over' }),
  createMonitoringMetric: () => ({ ...MONITORING_METRIC_BODY, display_name: 'made by B' }),
  updateMonitoringMetric: () => ({ display_name: 'taken over', alerting_policy: null }),
  updateMonitoringIncident: () => ({ notes: 'taken over' }),
  // B configures its own target (the second attempt is a 409 naming B's own config: see REFUSED_FOR_B).
  createVaultForwardConfig: () => ({ definition_id: 'custom', hosts: ['b.example'] }),
  // A's config named by B: 404, and nothing is added to it.
  createVaultForwardAuthentication: () => VAULT_FORWARD_SIGNATURE_BODY,
  // A's method named by B: 404, and its name and secret stay.
  updateVaultForwardAuthentication: () => ({
    display_name: 'taken over',
    fields: [{ key: 'secret', value: 'secret-of-b-0123456789-0123456789' }],
  }),
  // B's own link naming nothing of A; A's link named by B: 404, and it stays active.
  createPaymentLink: () => ({ amount: 100, currency: 'USD', country: 'US' }),
  expirePaymentLink: () => ({}),
  createReport: () => ({
    name: 'B made this',
    schedule: 'once',
    schedule_enabled: false,
    spec: { model: 'transactions', params: {} },
  }),
  // A's report named by B: 404, and its name and schedule stay.
  updateReport: () => ({ name: 'taken over', schedule_enabled: false }),
  // A's execution named by B: 404, no URL to A's file.
  createReportExecutionUrl: () => ({ expires_in: 60 }),
  // B's own user (the second credential's attempt is a 409: see REFUSED_FOR_B); A's user named by B: 404.
  createUser: () => ({ email_address: `made-by-b-${uuidv7()}@b.example`, roles: [{ role_id: roleId('analyst') }] }),
  updateUser: () => ({ display_name: 'taken over', status: 'disabled', roles: [] }),
  createUserSetupLink: () => ({}),
  updateThreeDsScenario: () => ({ outcome: { version: '2.2.0', authentication: { transaction_status: 'N' } } }),
};

/** Control headers per operation that takes them: B names A's stored card. */
const HEADERS: Record<string, () => Record<string, string>> = {
  forwardVaultRequest: () => ({
    'x-vault-forward-url': 'https://hooks.example.com/forward',
    'x-vault-forward-payment-methods': ids.payment_method_id!,
  }),
};
/**
 * Operations that refuse another account's resource named in a header with 400 naming it (the
 * issue's wording for vault forwarding) rather than 404, or in a line of a bulk import (400 with one
 * detail per refused line, decision 0135): the answer must still show nothing of A.
 */
const REFUSED_WITH_400 = new Set(['forwardVaultRequest', 'importBlocklistEntries']);
/**
 * Refusals B gets for its own reasons, which must still show nothing of A: wallet sessions act on
 * the account's own wallet (B has none: 400 telling B to register one); creates that allow one
 * resource per merchant account give B's second credential a 409 naming B's own (the first one's).
 */
const REFUSED_FOR_B = new Map([
  ['createApplePayDigitalWalletSession', 400],
  ['createGooglePayDigitalWalletSession', 400],
  ['createDigitalWallet', 409],
  ['createVaultForwardConfig', 409],
  ['createUser', 409],
  ['createPazeDigitalWalletSession', 400],
  ['createPazeDigitalWalletCheckout', 400],
  ['reviewPazeDigitalWalletSession', 400],
  ['completePazeDigitalWalletSession', 400],
]);

/** A valid query string per operation that requires one (a GET answering 422 fails the check below). */
const QUERIES: Record<string, () => string> = {
  getCardDetails: () => 'bin=42424242',
  listBuyerPaymentMethods: () => `buyer_id=${ids.buyer_id}`,
  listBuyerGiftCards: () => `buyer_id=${ids.buyer_id}`,
  getMetricTotals: () => 'datetime_range=P1D/now',
  listMetricModule: () => 'datetime_range=P1D/now',
  listMonitoringMetrics: () => 'samples_timestamp_interval=PT60M/now',
  // A's own session token: the credential of the route, whatever else is sent (see the attempts below).
  updateTransactionSession: () => `token=${encodeURIComponent(sessionTokenOfA)}`,
};

let t: TestApp;
let a: string;
let b: string;
let limitedToB: TestKeyPair;
const ids: Record<string, string> = {};
/** Every row outside merchant account B, read after the fixtures (see `rowsOutside`). */
let before: Record<string, string[]>;

beforeAll(async () => {
  t = await buildTestApp();
  a = await createMerchantAccount(t.deps, { id: `tenant-a-${uuidv7().slice(-8)}` });
  b = await createMerchantAccount(t.deps, { id: `tenant-b-${uuidv7().slice(-8)}` });
  limitedToB = await createTestKeyPair(t.deps, b);
  for (const [param, fixture] of Object.entries(FIXTURES)) ids[param] = await fixture(t, a);
  // A's authorizations reach routing_stats in the background (a batch a second): written before the snapshot.
  await t.deps.routingStats.flush();
  // A's authorizations reach its circuit breakers' rows at the next sync (about a second later):
  // now, so that no write of A's lands between the two snapshots.
  await t.deps.breakers.sync();
  // The same for A's velocity counts (the card-testing guard's): PGlite's sole writer would otherwise
  // move them from its journal to velocity_counts when their minute is over (decision 0142).
  await t.deps.velocity.flush();
  // And A's audit entries, which the sealer links into A's chain within a second (decision 0145).
  await t.deps.auditSealer.sealNow();
  before = await rowsOutside(b);
});
afterAll(async () => t.close());

/**
 * The server's own bookkeeping, which any request may write: rate limit counters, and instance
 * settings (secrets the server generates on first use, such as the report download key). The jobs
 * a request of B enqueues are told apart by their payload instead (see `rowsOutside`).
 */
const BOOKKEEPING = new Set(['rate_limit_windows', 'instance_settings', 'schema_migrations']);

/**
 * Every row of every table that lies outside merchant account B, as JSON text by table: rows of
 * other accounts, instance-wide rows (key pairs limited to no account, other merchant accounts)
 * and jobs whose payload does not name B. Compared before and after B's attempts: B may change
 * nothing outside B.
 */
async function rowsOutside(account: string): Promise<Record<string, string[]>> {
  const { rows: tables } = await sql<{ table_name: string; scoped: boolean }>`
    select c.table_name, bool_or(c.column_name = 'merchant_account_id') as scoped
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    group by c.table_name order by c.table_name`.execute(t.deps.db);
  const out: Record<string, string[]> = {};
  for (const { table_name: table, scoped } of tables) {
    if (BOOKKEEPING.has(table)) continue;
    const outside =
      // Dashboard users are instance-wide: one whose every role is in B (and its set-up links) is B's.
      table === 'dashboard_users' || table === 'dashboard_setup_tokens'
        ? sql`${sql.ref(table === 'dashboard_users' ? 'x.id' : 'x.user_id')} not in (
            select user_id from dashboard_memberships group by user_id
            having bool_and(merchant_account_id is not distinct from ${account}))`
        : table === 'merchant_accounts'
          ? sql`x.id <> ${account}`
          : table === 'jobs'
            ? sql`strpos(x.payload::text, ${account}) = 0`
            : scoped
              ? sql`x.merchant_account_id is distinct from ${account}`
              : sql`true`;
    const { rows } = await sql<{
      row: string;
    }>`select to_jsonb(x)::text as row from ${sql.table(table)} x where ${outside}`.execute(t.deps.db);
    out[table] = rows.map((r) => r.row).sort();
  }
  return out;
}

/** Every `merchant_account_id` value in an answer (a limited credential's answers name B only). */
function accountsNamed(value: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(value)) for (const item of value) accountsNamed(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === 'merchant_account_id') found.push(item);
      else accountsNamed(item, found);
    }
  }
  return found;
}

function protectedRoutes() {
  return t.registeredRoutes.filter(
    (route) => !route.public && route.method !== 'HEAD' && !route.url.startsWith('/test-only'),
  );
}

describe('security', () => {
  it('covers every protected route with fixtures and bodies', () => {
    const missing: string[] = [];
    for (const route of protectedRoutes()) {
      for (const [, param] of route.url.matchAll(/:([a-z_]+)/g))
        if (!FIXTURES[fixtureOf(route.url, param!)])
          missing.push(`fixture for :${param} (${route.method} ${route.url})`);
      if ((route.method === 'POST' || route.method === 'PUT') && !BODIES[route.config.operationId!])
        missing.push(`body for ${route.config.operationId}`);
    }
    expect(missing).toEqual([]);
  });

  it("lets no credential of merchant account B read, change or delete merchant account A's resources", async () => {
    const failures: string[] = [];
    // The instance-wide key pair's kid: only the key pair list would show it (its id is also the
    // creator named by the resources it made in B).
    const outsideB = [
      ...Object.entries(ids)
        .filter(([param, id]) => id !== a && !CATALOGUE_PARAMS.has(param))
        .map(([, id]) => id),
      t.keys.thumbprint,
    ];
    const limited = [
      { label: 'key pair limited to B', token: await limitedToB.token() },
      {
        label: 'token limited to B by its merchant_account_id claim',
        token: await t.keys.token({ merchantAccountId: b }),
      },
      {
        label: 'embed token pinned to B, with *.read and *.write',
        token: await mintToken({
          privateKeyPem: t.keys.privateKeyPem,
          scopes: ['embed', '*.read', '*.write'],
          lifetimeSeconds: 3600,
          embed: { merchant_account_id: b },
        }),
      },
    ];
    for (const route of protectedRoutes()) {
      const query = QUERIES[route.config.operationId!]?.();
      const url =
        route.url.replace(/:([a-z_]+)/g, (_m, param: string) => ids[fixtureOf(route.url, param)]!) +
        (query ? `?${query}` : '');
      const payload = BODIES[route.config.operationId!]?.();
      const extraHeaders = HEADERS[route.config.operationId!]?.() ?? {};
      // The checkout session id, or the transaction's session token, is the credential there (a bearer
      // token means nothing): the only way to reach for merchant account B is to name it, which the
      // session's pinned account refuses.
      const attempts: Array<{ label: string; token: string; merchantAccountId?: string }> =
        (route.config.credential ?? 'bearer') !== 'bearer' ? [] : [...limited];
      if (route.config.merchantScoped !== false)
        attempts.push({ label: 'instance-wide key acting on B', token: await t.keys.token(), merchantAccountId: b });
      for (const attempt of attempts) {
        const res = await t.request({
          method: route.method as 'GET',
          url,
          token: attempt.token,
          headers: extraHeaders,
          ...(attempt.merchantAccountId ? { merchantAccountId: attempt.merchantAccountId } : {}),
          ...(payload ? { payload } : {}),
        });
        const where = `${route.method} ${route.url} (${attempt.label}) → ${res.statusCode}`;
        const touchesA = [...route.url.matchAll(/:([a-z_]+)/g)].some(([, param]) => !CATALOGUE_PARAMS.has(param!));
        if (touchesA) {
          if (![403, 404].includes(res.statusCode)) failures.push(`${where}: expected 403 or 404`);
        } else if (res.statusCode < 300) {
          // Lists and creates act on B only: nothing outside B may appear in the answer.
          if (res.body.includes(a) || outsideB.some((id) => res.body.includes(id)))
            failures.push(`${where}: the answer shows data outside merchant account B`);
          const named = accountsNamed(res.body ? res.json() : null).filter((account) => account !== b);
          if (named.length > 0)
            failures.push(`${where}: the answer names merchant account ${JSON.stringify(named[0])}, not B`);
        } else if (
          ![403, 404].includes(res.statusCode) &&
          !(res.statusCode === 400 && REFUSED_WITH_400.has(route.config.operationId!)) &&
          REFUSED_FOR_B.get(route.config.operationId!) !== res.statusCode
        ) {
          failures.push(`${where}: unexpected status`);
        } else if (res.body.includes(a)) {
          failures.push(`${where}: the refusal shows merchant account A's data`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('changes no row outside merchant account B', async () => {
    const after = await rowsOutside(b);
    // The snapshot holds A's rows and the instance-wide key pair, so an empty read cannot pass.
    expect(before.buyers!.length).toBeGreaterThan(0);
    expect(before.api_key_pairs!.some((row) => row.includes(t.keys.thumbprint))).toBe(true);
    const changed = Object.keys({ ...before, ...after }).filter(
      (table) => JSON.stringify(before[table]) !== JSON.stringify(after[table]),
    );
    expect(
      changed.map((table) => ({ table, added: (after[table] ?? []).filter((row) => !before[table]?.includes(row)) })),
    ).toEqual([]);
  });

  it("leaves merchant account A's resources as they were", async () => {
    expect((await t.request({ method: 'GET', url: `/merchant-accounts/${a}` })).json().display_name).toBe(
      `Merchant ${a}`,
    );
    const configs = (await t.request({ method: 'GET', url: `/merchant-accounts/${a}/three-ds-configurations` })).json();
    expect(configs.items.map((c: { id: string; merchant_name: string }) => [c.id, c.merchant_name])).toEqual([
      [ids.three_ds_configuration_id, 'Merchant A'],
    ]);
    const pair = (await t.request({ method: 'GET', url: `/api-key-pairs/${ids.api_key_pair_id}` })).json();
    expect(pair).toMatchObject({ display_name: 'owned by A', active: true });
    const buyer = (await t.request({ method: 'GET', url: `/buyers/${ids.buyer_id}`, merchantAccountId: a })).json();
    expect(buyer).toMatchObject({
      display_name: 'Buyer of A',
      external_identifier: 'buyer-a',
      billing_details: { first_name: 'Ada' },
    });
    const shipping = (
      await t.request({ method: 'GET', url: `/buyers/${ids.buyer_id}/shipping-details`, merchantAccountId: a })
    ).json();
    expect(shipping.items.map((s: { id: string; first_name: string }) => [s.id, s.first_name])).toEqual([
      [ids.shipping_details_id, 'Ada'],
    ]);
    const tokens = (
      await t.request({
        method: 'GET',
        url: `/payment-methods/${ids.payment_method_id}/network-tokens`,
        merchantAccountId: a,
      })
    ).json();
    expect(tokens.items.map((n: { id: string; status: string }) => [n.id, n.status])).toEqual([
      [ids.network_token_id, 'active'],
    ]);
    const gateway = (
      await t.request({
        method: 'GET',
        url: `/payment-methods/${ids.payment_method_id}/payment-service-tokens`,
        merchantAccountId: a,
      })
    ).json();
    expect(gateway.items.map((n: { id: string; status: string }) => [n.id, n.status])).toEqual([
      [ids.payment_service_token_id, 'succeeded'],
    ]);
    expect(
      (await t.request({ method: 'GET', url: `/gift-cards/${ids.gift_card_id}`, merchantAccountId: a })).json(),
    ).toMatchObject({ last4: '0001', buyer: null });
    const service = (
      await t.request({ method: 'GET', url: `/payment-services/${ids.payment_service_id}`, merchantAccountId: a })
    ).json();
    expect(service).toMatchObject({
      display_name: 'Service of A',
      is_deleted: false,
      fields: [{ key: 'merchant_id', value: 'a-merchant' }],
    });
    const fees = await t.request({
      method: 'GET',
      url: `/payment-services/${ids.payment_service_id}/fee-schedule`,
      merchantAccountId: a,
    });
    expect(fees.json()).toMatchObject({ entries: [], updated_at: null });
    const subscription = (
      await t.request({ method: 'GET', url: `/webhook-subscriptions/${ids.subscription_id}`, merchantAccountId: a })
    ).json();
    expect(subscription).toMatchObject({
      url: WEBHOOK_SUBSCRIPTION_BODY.url,
      active: true,
      rotating: false,
      authentication: { username: 'a' },
    });
    const rule = (
      await t.request({
        method: 'GET',
        url: `/flows/card-transaction/actions/route-transaction/rules/${ids.rule_id}`,
        merchantAccountId: a,
      })
    ).json();
    expect(rule).toMatchObject({
      enabled: true,
      position: 1,
      outcome: { payment_service_ids: [ids.payment_service_id] },
    });
    const wallet = (
      await t.request({ method: 'GET', url: `/digital-wallets/${ids.digital_wallet_id}`, merchantAccountId: a })
    ).json();
    expect(wallet).toMatchObject({ merchant_name: 'A shop', domain_names: ['a.example.com'] });
    const payout = (await t.request({ method: 'GET', url: `/payouts/${ids.payout_id}`, merchantAccountId: a })).json();
    expect(payout).toMatchObject({ status: 'succeeded', amount: 500, payment_method: { id: ids.payment_method_id } });
    expect(
      (await t.request({ method: 'GET', url: '/payouts', merchantAccountId: a }))
        .json()
        .items.map((p: { id: string }) => p.id),
    ).toEqual([ids.payout_id]);
    expect(
      (
        await t.request({ method: 'GET', url: `/payment-methods/${ids.payment_method_id}`, merchantAccountId: a })
      ).json(),
    ).toMatchObject({ expiration_date: CARD_BODY.expiration_date });
    const capture = (
      await t.request({
        method: 'GET',
        url: `/transactions/${ids.transaction_id}/captures/${ids.capture_id}`,
        merchantAccountId: a,
      })
    ).json();
    expect(capture).toMatchObject({ id: ids.capture_id, status: 'succeeded', amount: 1000 });
    const refundSettlement = (
      await t.request({
        method: 'GET',
        url: `/transactions/${ids.transaction_id}/refund-settlements/${ids.refund_settlement_id}`,
        merchantAccountId: a,
      })
    ).json();
    expect(refundSettlement).toMatchObject({ id: ids.refund_settlement_id, refund_id: ids.refund_id, amount: -100 });
    expect(
      (await t.request({ method: 'GET', url: `/payment-links/${ids.payment_link_id}`, merchantAccountId: a })).json(),
    ).toMatchObject({ status: 'active', external_identifier: 'link-of-a' });
    const report = (await t.request({ method: 'GET', url: `/reports/${ids.report_id}`, merchantAccountId: a })).json();
    expect(report).toMatchObject({
      name: 'Report of A',
      schedule_enabled: true,
      latest_execution: { id: ids.report_execution_id, status: 'succeeded' },
    });
    const deliveries = (
      await t.request({
        method: 'GET',
        url: `/webhook-subscriptions/${ids.subscription_id}/deliveries`,
        merchantAccountId: a,
      })
    ).json();
    expect(deliveries.items).toMatchObject([
      { id: ids.delivery_id, status: 'pending', attempts: 0, event_kind: 'transaction.created' },
    ]);
    expect(
      (await t.request({ method: 'GET', url: '/metrics-explorer/authorization/presets', merchantAccountId: a })).json(),
    ).toMatchObject([{ id: ids.preset_id, display_name: 'of A' }]);
    expect(
      (await t.request({ method: 'GET', url: `/monitoring/metrics/${ids.metric_id}`, merchantAccountId: a })).json(),
    ).toMatchObject({ display_name: 'Rate of A', alerting_policy: { params: { alert_gt: 0.5 } } });
    expect(
      (
        await t.request({ method: 'GET', url: `/monitoring/incidents/${ids.incident_id}`, merchantAccountId: a })
      ).json(),
    ).toMatchObject({ metric_id: ids.metric_id, notes: null });
    const forwardConfig = (
      await t.request({ method: 'GET', url: `/vault-forward/configs/${ids.config_id}`, merchantAccountId: a })
    ).json();
    expect(forwardConfig).toMatchObject({
      hosts: ['hooks.example.com'],
      authentications: [{ id: ids.authentication_id, display_name: 'Signing of A', label: 'key a-1' }],
    });
  });
});
