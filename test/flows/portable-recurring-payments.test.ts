import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../fakes/braintree-fake.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';

/**
 * Portable recurring payments (docs/connectors.md, "Network transaction ids"): every connector
 * records the scheme's transaction id its provider answers, on the transaction and on the stored
 * card (its first approved customer-initiated payment), and a merchant-initiated payment sends the
 * request's `previous_scheme_transaction_id`, else the card's, to whichever provider it goes to.
 * So a card first charged at Stripe is charged merchant-initiated at Adyen or Braintree with
 * Stripe's id. Through HTTP against the three providers' local fakes.
 */
let t: TestApp;
let adyen: AdyenFake;
let braintree: BraintreeFake;
const stripe = new StripeFake();
const PAN = '4242424242424242';

beforeAll(async () => {
  await stripe.start();
  adyen = await startAdyenFake();
  braintree = await startBraintreeFake();
  t = await buildTestApp({
    STRIPE_API_BASE_URL: stripe.url,
    CONNECTOR_BASE_URLS: `adyen-card=${adyen.baseUrl},braintree-card=${braintree.baseUrl}`,
  });
});
afterAll(async () => {
  await t.close();
  await adyen.close();
  await braintree.close();
  await stripe.stop();
});

type Fields = Record<string, string>;
const SERVICES: Record<string, (extra: Fields) => { definition: string; fields: Fields }> = {
  stripe: (extra) => ({ definition: 'stripe-card', fields: { secret_key: stripe.secretKey, ...extra } }),
  adyen: (extra) => ({
    definition: 'adyen-card',
    fields: { api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, ...extra },
  }),
  braintree: (extra) => ({
    definition: 'braintree-card',
    fields: {
      environment: 'sandbox',
      merchant_id: 'mid',
      ...BRAINTREE_FAKE_KEYS,
      merchant_account_ids: 'EUR=acme_eur',
      ...extra,
    },
  }),
  mock: (extra) => ({ definition: 'mock-card', fields: { merchant_id: 'merchant-1', ...extra } }),
};

async function service(m: string, name: keyof typeof SERVICES, extra: Fields = {}): Promise<string> {
  const { definition, fields } = SERVICES[name]!(extra);
  const payload = {
    display_name: name,
    payment_service_definition_id: definition,
    fields: Object.entries(fields).map(([key, value]) => ({ key, value })),
    accepted_currencies: ['EUR'],
    accepted_countries: ['NL'],
  };
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function storedCard(m: string, number = PAN): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number, expiration_date: '12/40' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function pay(m: string, serviceId: string, body: Record<string, unknown>) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'EUR', country: 'NL', payment_service_id: serviceId, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const MIT = { merchant_initiated: true, is_subsequent_payment: true, payment_source: 'recurring' };
const withCard = (id: string, extra: Record<string, unknown> = {}) => ({
  payment_method: { method: 'id', id, ...extra },
});
const paymentMethod = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/payment-methods/${id}`, merchantAccountId: m })).json();
/** The network transaction id Stripe's charge of a PaymentIntent answered. */
const stripeNetworkId = (intentId: string) =>
  (
    stripe.state.intents.get(intentId)!._charge as {
      payment_method_details: { card: { network_transaction_id: string } };
    }
  ).payment_method_details.card.network_transaction_id;
const lastAdyenPayment = () => adyen.bodies('/v71/payments').at(-1)!;

describe('happy', () => {
  it("charges merchant-initiated through Adyen a card stored and first charged through Stripe, carrying Stripe's network transaction id", async () => {
    const m = await createMerchantAccount(t.deps);
    const [stripeId, adyenId] = [await service(m, 'stripe'), await service(m, 'adyen')];
    const card = await storedCard(m);
    const first = await pay(m, stripeId, withCard(card, { security_code: '123' }));
    const networkId = stripeNetworkId(first.payment_service_transaction_id);
    expect(networkId).toMatch(/^\d{15}$/);
    expect(first).toMatchObject({ status: 'authorization_succeeded', scheme_transaction_id: networkId });
    expect(await paymentMethod(m, card)).toMatchObject({
      scheme_transaction_id: networkId,
      scheme_transaction_id_scheme: 'visa',
    });

    const mit = await pay(m, adyenId, { ...withCard(card), ...MIT });
    expect(mit).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: adyenId } });
    const sent = lastAdyenPayment();
    expect(sent).toMatchObject({
      reference: expect.any(String),
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
      additionalData: { networkTxReference: networkId },
    });
    expect(sent.paymentMethod).toMatchObject({ type: 'scheme', number: PAN });
    // Adyen's own id of this payment is the transaction's; the card keeps the first one.
    expect(mit.scheme_transaction_id).toMatch(/^NTR/);
    expect((await paymentMethod(m, card)).scheme_transaction_id).toBe(networkId);
  });
});

/** What each provider answered as the network transaction id of one of our transactions. */
const providerNetworkId: Record<
  'stripe' | 'adyen' | 'braintree',
  (txn: { payment_service_transaction_id: string }) => string | null | undefined
> = {
  stripe: (txn) => stripeNetworkId(txn.payment_service_transaction_id),
  adyen: (txn) => `NTR${txn.payment_service_transaction_id.slice(3)}`,
  braintree: (txn) => braintree.transactions.get(txn.payment_service_transaction_id)?.networkTransactionId,
};

describe('happy: every connector records the id', () => {
  it.each(['stripe', 'adyen', 'braintree'] as const)(
    '%s: on the transaction and on the stored card of its first approved customer-initiated payment',
    async (name) => {
      const m = await createMerchantAccount(t.deps);
      const serviceId = await service(m, name);
      const card = await storedCard(m);
      const first = await pay(m, serviceId, withCard(card, { security_code: '123' }));
      const networkId = providerNetworkId[name](first);
      expect(networkId).toMatch(/^\w{9,}$/);
      expect(first).toMatchObject({ status: 'authorization_succeeded', scheme_transaction_id: networkId });
      expect(await paymentMethod(m, card)).toMatchObject({
        scheme_transaction_id: networkId,
        scheme_transaction_id_scheme: 'visa',
      });
      // A card paid with store: true gets it as it is stored.
      const stored = await pay(m, serviceId, {
        payment_method: { method: 'card', number: '5555555555554444', expiration_date: '12/40', security_code: '123' },
        store: true,
        payment_source: 'recurring',
      });
      expect(await paymentMethod(m, stored.payment_method.id)).toMatchObject({
        scheme_transaction_id: providerNetworkId[name](stored),
        scheme_transaction_id_scheme: 'mastercard',
      });
    },
  );
});

describe("happy: the id of a payment approved after the provider's 3DS page", () => {
  it("stripe: found by the sync that follows the buyer's return", async () => {
    const m = await createMerchantAccount(t.deps);
    const stripeId = await service(m, 'stripe');
    const card = await storedCard(m, '4000000000003220');
    const txn = await pay(
      m,
      stripeId,
      withCard(card, { security_code: '123', redirect_url: 'https://shop.example/back' }),
    );
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', scheme_transaction_id: null });
    stripe.completeAuthentication(txn.payment_service_transaction_id, true);
    const synced = await t.request({ method: 'POST', url: `/transactions/${txn.id}/sync`, merchantAccountId: m });
    expect(synced.statusCode, synced.body).toBe(200);
    const networkId = stripeNetworkId(txn.payment_service_transaction_id);
    expect(synced.json()).toMatchObject({ status: 'authorization_succeeded', scheme_transaction_id: networkId });
    expect(await paymentMethod(m, card)).toMatchObject({
      scheme_transaction_id: networkId,
      scheme_transaction_id_scheme: 'visa',
    });
  });

  it('adyen: completed with the redirect result the buyer brings back', async () => {
    const m = await createMerchantAccount(t.deps);
    const adyenId = await service(m, 'adyen');
    const card = await storedCard(m);
    const txn = await pay(m, adyenId, {
      ...withCard(card, { security_code: '123', redirect_url: 'https://shop.example/back' }),
      amount: 2300,
    });
    expect(txn.status).toBe('buyer_approval_pending');
    const issuer = await fetch(`${txn.payment_method.approval_url}?answer=Y`, { redirect: 'manual' });
    const back = new URL(issuer.headers.get('location')!);
    expect((await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(200);
    const done = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(done).toMatchObject({
      status: 'authorization_succeeded',
      scheme_transaction_id: providerNetworkId.adyen(done),
    });
    expect((await paymentMethod(m, card)).scheme_transaction_id).toBe(done.scheme_transaction_id);
  });
});

describe('happy: every connector sends it with a merchant-initiated payment', () => {
  it("Braintree: a card first charged at Adyen, as an externally vaulted card with Adyen's id", async () => {
    const m = await createMerchantAccount(t.deps);
    const [adyenId, braintreeId] = [await service(m, 'adyen'), await service(m, 'braintree')];
    const card = await storedCard(m);
    const networkId = (await pay(m, adyenId, withCard(card, { security_code: '123' }))).scheme_transaction_id;
    expect(networkId).toMatch(/^NTR/);
    const mit = await pay(m, braintreeId, {
      ...withCard(card),
      merchant_initiated: true,
      is_subsequent_payment: true,
      payment_source: 'card_on_file',
    });
    expect(mit).toMatchObject({
      status: 'authorization_succeeded',
      scheme_transaction_id: providerNetworkId.braintree(mit),
    });
    expect(braintree.calls('AuthorizeCreditCard').at(-1)).toMatchObject({
      input: {
        transaction: { paymentInitiator: 'UNSCHEDULED' },
        options: { externalVault: { status: 'VAULTED', verifyingNetworkTransactionId: networkId } },
      },
    });
    expect((await paymentMethod(m, card)).scheme_transaction_id).toBe(networkId);
  });

  it("Stripe: a card first charged at Braintree, with Braintree's id as the MIT exemption, once Stripe enabled it on the account", async () => {
    const m = await createMerchantAccount(t.deps);
    const braintreeId = await service(m, 'braintree');
    const [enabled, plain] = [
      await service(m, 'stripe', { network_transaction_ids_enabled: 'true' }),
      await service(m, 'stripe'),
    ];
    const card = await storedCard(m);
    const networkId = (await pay(m, braintreeId, withCard(card, { security_code: '123' }))).scheme_transaction_id;
    expect(networkId).toMatch(/^4\d{14}$/);
    const mit = await pay(m, enabled, { ...withCard(card), ...MIT });
    expect(mit).toMatchObject({
      status: 'authorization_succeeded',
      scheme_transaction_id: providerNetworkId.stripe(mit),
    });
    const intentBody = () => stripe.requests.filter((r) => r.path === '/v1/payment_intents').at(-1)!.body;
    expect(intentBody()).toMatchObject({
      off_session: 'true',
      payment_method_options: { card: { mit_exemption: { network_transaction_id: networkId } } },
    });
    // Without the account's feature the parameter is never sent (Stripe would refuse it as unknown).
    stripe.mitExemptionEnabled = false;
    try {
      expect(await pay(m, plain, { ...withCard(card), ...MIT })).toMatchObject({ status: 'authorization_succeeded' });
      expect(intentBody()).toMatchObject({ off_session: 'true' });
      expect(intentBody().payment_method_options).toBeUndefined();
    } finally {
      stripe.mitExemptionEnabled = true;
    }
  });

  it("the sandbox (mock-card): shows what it received among the payment's identifiers", async () => {
    const m = await createMerchantAccount(t.deps);
    const [adyenId, mockId] = [await service(m, 'adyen'), await service(m, 'mock')];
    const card = await storedCard(m);
    const networkId = (await pay(m, adyenId, withCard(card, { security_code: '123' }))).scheme_transaction_id;
    const mit = await pay(m, mockId, { ...withCard(card), ...MIT });
    expect(mit).toMatchObject({
      status: 'authorization_succeeded',
      additional_identifiers: { previous_scheme_transaction_id: networkId },
    });
    const cit = await pay(m, mockId, withCard(card, { security_code: '123' }));
    expect(cit.additional_identifiers).not.toHaveProperty('previous_scheme_transaction_id');
  });

  it("sends the request's previous_scheme_transaction_id rather than the stored card's, and a migrated raw card's", async () => {
    const m = await createMerchantAccount(t.deps);
    const [stripeId, adyenId, braintreeId] = [
      await service(m, 'stripe'),
      await service(m, 'adyen'),
      await service(m, 'braintree'),
    ];
    const card = await storedCard(m);
    const networkId = (await pay(m, stripeId, withCard(card, { security_code: '123' }))).scheme_transaction_id;
    await pay(m, adyenId, { ...withCard(card), ...MIT, previous_scheme_transaction_id: 'MCC0123456789' });
    expect(lastAdyenPayment().additionalData).toMatchObject({ networkTxReference: 'MCC0123456789' });
    expect((await paymentMethod(m, card)).scheme_transaction_id).toBe(networkId);
    // A card brought from another vault: its number and the id its first payment got there.
    const migrated = { method: 'card', number: '4111111111111111', expiration_date: '12/40' };
    await pay(m, braintreeId, {
      payment_method: migrated,
      ...MIT,
      payment_source: 'installment',
      previous_scheme_transaction_id: '483299310332879',
    });
    expect(braintree.calls('AuthorizeCreditCard').at(-1)).toMatchObject({
      input: {
        transaction: { paymentInitiator: 'INSTALLMENT' },
        options: { externalVault: { status: 'VAULTED', verifyingNetworkTransactionId: '483299310332879' } },
      },
    });
    await pay(m, adyenId, {
      payment_method: migrated,
      ...MIT,
      payment_source: 'card_on_file',
      previous_scheme_transaction_id: '483299310332879',
    });
    expect(lastAdyenPayment()).toMatchObject({
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'UnscheduledCardOnFile',
      additionalData: { networkTxReference: '483299310332879' },
    });
  });
});

describe('errors', () => {
  it('a customer-initiated payment never sends one, even when the request names one', async () => {
    const m = await createMerchantAccount(t.deps);
    const [stripeId, adyenId, braintreeId] = [
      await service(m, 'stripe', { network_transaction_ids_enabled: 'true' }),
      await service(m, 'adyen'),
      await service(m, 'braintree'),
    ];
    const card = await storedCard(m);
    const put = await t.request({
      method: 'PUT',
      url: `/payment-methods/${card}`,
      merchantAccountId: m,
      payload: { scheme_transaction_id: 'MCC000111' },
    });
    expect(put.statusCode, put.body).toBe(200);
    const cit = {
      ...withCard(card, { security_code: '123' }),
      is_subsequent_payment: true,
      payment_source: 'card_on_file',
      previous_scheme_transaction_id: 'MCC000222',
    };
    await pay(m, adyenId, cit);
    expect(lastAdyenPayment()).toMatchObject({
      shopperInteraction: 'Ecommerce',
      additionalData: { manualCapture: 'true' },
    });
    expect(lastAdyenPayment().additionalData).not.toHaveProperty('networkTxReference');
    await pay(m, braintreeId, cit);
    const call = braintree.calls('AuthorizeCreditCard').at(-1)!;
    expect(call.input.options).toBeUndefined();
    expect(call.input.transaction.paymentInitiator).toBeUndefined();
    await pay(m, stripeId, cit);
    const body = stripe.requests.filter((r) => r.path === '/v1/payment_intents').at(-1)!.body;
    expect(body.payment_method_options).toBeUndefined();
    expect(body.off_session).toBeUndefined();
    expect((await paymentMethod(m, card)).scheme_transaction_id).toBe('MCC000111');
  });

  it('a merchant-initiated payment of a card without an id sends none and gives the card none', async () => {
    const m = await createMerchantAccount(t.deps);
    const adyenId = await service(m, 'adyen');
    const card = await storedCard(m);
    const mit = await pay(m, adyenId, { ...withCard(card), ...MIT });
    expect(mit).toMatchObject({
      status: 'authorization_succeeded',
      scheme_transaction_id: expect.stringMatching(/^NTR/),
    });
    expect(lastAdyenPayment()).toMatchObject({
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
    });
    expect(lastAdyenPayment().additionalData).not.toHaveProperty('networkTxReference');
    expect(await paymentMethod(m, card)).toMatchObject({
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
    });
  });

  it('a declined customer-initiated payment gives the card no id', async () => {
    const m = await createMerchantAccount(t.deps);
    const adyenId = await service(m, 'adyen');
    const card = await storedCard(m);
    const declined = await pay(m, adyenId, { ...withCard(card, { security_code: '123' }), amount: 2005 });
    expect(declined).toMatchObject({ status: 'authorization_declined', scheme_transaction_id: null });
    expect((await paymentMethod(m, card)).scheme_transaction_id).toBeNull();
  });
});

describe('security', () => {
  it("another merchant account's card, and the id it holds, reach no provider", async () => {
    const m = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const [stripeId, otherAdyen] = [await service(m, 'stripe'), await service(other, 'adyen')];
    const card = await storedCard(m);
    const networkId = (await pay(m, stripeId, withCard(card, { security_code: '123' }))).scheme_transaction_id;
    const before = adyen.requests.length;
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: other,
      payload: {
        amount: 1000,
        currency: 'EUR',
        country: 'NL',
        payment_service_id: otherAdyen,
        ...withCard(card),
        ...MIT,
      },
    });
    expect(res.statusCode).toBe(404);
    expect(adyen.requests.slice(before).filter((r) => r.path === '/v71/payments')).toEqual([]);
    expect(JSON.stringify(adyen.requests.slice(before))).not.toContain(networkId);
  });
});
