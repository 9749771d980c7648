import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { card } from '../helpers/transactions.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';

/**
 * Stripe Connect through our API against the local Stripe fake: a destination charge
 * (`transfer_data[destination]`, `on_behalf_of`, `application_fee_amount`, `transfer_group` in
 * Stripe's form encoding), a direct charge on a connected account (`Stripe-Account` on every call:
 * the PaymentMethod, the PaymentIntent, capture, refund, sync), refunds that reverse the transfer
 * and refund the fee in proportion, and options Stripe would refuse refused before any call.
 */

const fake = new StripeFake();
let t: TestApp;
let m: string;

beforeAll(async () => {
  await fake.start();
  t = await buildTestApp({ STRIPE_API_BASE_URL: fake.url });
  m = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Stripe platform',
      payment_service_definition_id: 'stripe-card',
      fields: [
        { key: 'secret_key', value: fake.secretKey },
        { key: 'webhook_signing_secret', value: 'whsec_connect' },
      ],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'DE'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});

const pay = (connect: Record<string, unknown>, body: Record<string, unknown> = {}) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_method: card('4242424242424242'),
      connection_options: { 'stripe-card': { stripe_connect: connect } },
      ...body,
    },
  });
const post = (url: string, payload: Record<string, unknown> = {}) =>
  t.request({ method: 'POST', url, merchantAccountId: m, payload });
const intentCreates = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
const refunds = () => fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');

describe('destination charges', () => {
  it('sends the Connect fields in Stripe form, and refunds reversing the transfer and the fee in proportion', async () => {
    const res = await pay({
      transfer_data_destination: 'acct_1Seller',
      on_behalf_of: 'acct_1Seller',
      application_fee_amount: 123,
      transfer_group: 'order-77',
    });
    expect(res.statusCode, res.body).toBe(201);
    const txn = res.json();
    expect(txn.status).toBe('authorization_succeeded');
    const sent = intentCreates().at(-1)!;
    expect(sent.headers['stripe-account']).toBeUndefined();
    expect(sent.body).toMatchObject({
      transfer_data: { destination: 'acct_1Seller' },
      on_behalf_of: 'acct_1Seller',
      application_fee_amount: '123',
      transfer_group: 'order-77',
    });
    expect(fake.state.intents.get(txn.payment_service_transaction_id)).toMatchObject({
      transfer_data: { destination: 'acct_1Seller' },
      application_fee_amount: 123,
    });
    expect((await post(`/transactions/${txn.id}/capture`)).json()).toMatchObject({ status: 'succeeded' });
    const refund = await post(`/transactions/${txn.id}/refunds`, { amount: 400 });
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 400 });
    // The seller gives back its share and the platform its fee, in proportion to the refund.
    expect(refunds().at(-1)!.body).toMatchObject({
      reverse_transfer: 'true',
      refund_application_fee: 'true',
      amount: '400',
    });
    const made = fake.state.refunds.get(refund.json().payment_service_refund_id)!;
    expect(made.transfer_reversal).toEqual(expect.stringMatching(/^trr_/));
    expect(fake.state.connectRefunds.get(String(made.id))).toEqual({
      transferReversed: 400,
      applicationFeeRefunded: 49,
    });
  });

  it("refunds a platform's own charge with Stripe's defaults (no Connect parameters)", async () => {
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card('4242424242424242') },
    });
    await post(`/transactions/${res.json().id}/capture`);
    expect((await post(`/transactions/${res.json().id}/refunds`, { amount: 300 })).json()).toMatchObject({
      status: 'succeeded',
    });
    const sent = refunds().at(-1)!;
    expect(sent.body.reverse_transfer).toBeUndefined();
    expect(sent.body.refund_application_fee).toBeUndefined();
  });

  it('the fake refuses what Stripe refuses: a transfer reversal of a charge without a transfer, a non-boolean flag', async () => {
    const res = await pay({ stripe_account: 'acct_1Shop' });
    const intent = res.json().payment_service_transaction_id;
    const refund = (form: string) =>
      fetch(`${fake.url}/v1/refunds`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${fake.secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': `k-${form}`,
          'stripe-account': 'acct_1Shop',
        },
        body: `payment_intent=${intent}&amount=100&${form}`,
      });
    for (const form of ['reverse_transfer=true', 'refund_application_fee=true', 'reverse_transfer=yes']) {
      const answer = await refund(form);
      expect(answer.status, form).toBe(400);
      expect(((await answer.json()) as { error: { param: string } }).error.param).toBe(form.split('=')[0]);
    }
  });

  it('refuses an application fee without a destination or account, and a fee above the amount, before calling Stripe', async () => {
    const before = intentCreates().length;
    for (const connect of [
      { application_fee_amount: 100 },
      { transfer_data_destination: 'acct_1Seller', application_fee_amount: 1001 },
      { transfer_data_destination: 'seller' },
      { stripe_account: 'acct_1Shop', on_behalf_of: 'acct_1Shop' },
    ]) {
      const res = await pay(connect);
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ status: 'authorization_failed' });
    }
    expect(intentCreates().length).toBe(before);
  });
});

describe('direct charges', () => {
  it('sends Stripe-Account on every call of the payment', async () => {
    const res = await pay({ stripe_account: 'acct_1Shop', application_fee_amount: 50 });
    const txn = res.json();
    expect(txn.status, res.body).toBe('authorization_succeeded');
    const created = intentCreates().at(-1)!;
    expect(created.headers['stripe-account']).toBe('acct_1Shop');
    expect(created.body.transfer_data).toBeUndefined();
    expect(created.body.application_fee_amount).toBe('50');
    const pmCall = fake.requests.filter((r) => r.path === '/v1/payment_methods').at(-1)!;
    expect(pmCall.headers['stripe-account']).toBe('acct_1Shop');
    expect((await post(`/transactions/${txn.id}/capture`, { amount: 700 })).json()).toMatchObject({
      status: 'succeeded',
    });
    expect((await post(`/transactions/${txn.id}/refunds`, { amount: 200 })).json()).toMatchObject({
      status: 'succeeded',
    });
    // No transfer to reverse on a direct charge; the platform's fee is refunded in proportion.
    expect(refunds().at(-1)!.body).toMatchObject({ refund_application_fee: 'true' });
    expect(refunds().at(-1)!.body.reverse_transfer).toBeUndefined();
    const made = [...fake.state.refunds.values()].at(-1)!;
    expect(fake.state.connectRefunds.get(String(made.id))).toEqual({ transferReversed: 0, applicationFeeRefunded: 10 });
    const follow = fake.requests.filter(
      (r) => r.path.startsWith(`/v1/payment_intents/${txn.payment_service_transaction_id}`) || r.path === '/v1/refunds',
    );
    expect(follow.length).toBeGreaterThan(1);
    for (const r of follow.slice(-2)) expect(r.headers['stripe-account']).toBe('acct_1Shop');
  });

  it('reconciles a lost direct charge by searching the connected account', async () => {
    fake.failNext({ drop: true }, 2, '/v1/payment_intents');
    const res = await pay({ stripe_account: 'acct_1Shop' });
    expect(res.json().status, res.body).toBe('processing');
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 24 * 3600_000));
    const after = await t.request({ method: 'GET', url: `/transactions/${res.json().id}`, merchantAccountId: m });
    expect(after.json().status).toBe('authorization_succeeded');
    const search = fake.requests.filter((r) => r.path === '/v1/payment_intents/search').at(-1)!;
    expect(search.headers['stripe-account']).toBe('acct_1Shop');
  });
});
