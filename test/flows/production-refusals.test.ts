import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { warnOfSandboxPaymentServices } from '../../src/modules/payment-services/payment-services.service.ts';
import { StripeFake } from '../fakes/stripe-fake.ts';
import type { TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { buildProductionApp, seedSandboxPaymentService } from '../helpers/production.ts';
import { card } from '../helpers/transactions.ts';

/**
 * ENVIRONMENT=production through HTTP (issue 50 item 4): the sandbox connectors, their payment
 * services left from before the switch, the simulated network tokens, account updater, 3DS server
 * and gift card service are refused with the message docs/production.md lists; the sandbox pages
 * are not served; a real connector still works. The sandbox's own behaviour is covered by each
 * module's tests.
 */

const stripe = new StripeFake();
let t: TestApp;
let m: string;
let sandboxCard: string;
let stripeId: string;

const error = (status: number, code: string, message: string, details: unknown[] = []) => ({
  type: 'error',
  code,
  status,
  message,
  details,
});
const MOCK_CARD_REFUSAL =
  'mock-card is a sandbox connector and is not available in production; use one of: adyen-card, braintree-card, checkout-card, stripe-card';
const post = (url: string, payload: Record<string, unknown>, merchantAccountId = m) =>
  t.request({ method: 'POST', url, merchantAccountId, payload });
const countOf = async (table: 'transactions' | 'transaction_attempts' | 'payouts' | 'payment_service_tokens') =>
  Number(
    (
      await sql<{ n: string }>`select count(*) as n from ${sql.table(table)} where merchant_account_id = ${m}`.execute(
        t.deps.db,
      )
    ).rows[0]!.n,
  );

beforeAll(async () => {
  await stripe.start();
  t = await buildProductionApp({ NETWORK_TOKENS_API_PROVISIONING: 'true' }, { stripeApiBaseUrl: stripe.url });
  m = await createMerchantAccount(t.deps);
  sandboxCard = await seedSandboxPaymentService(t, m, 'mock-card', { position: 0 });
  const res = await post('/payment-services', {
    display_name: 'Stripe',
    payment_service_definition_id: 'stripe-card',
    position: 5,
    three_d_secure_enabled: true,
    payment_method_tokenization_enabled: true,
    fields: [
      { key: 'secret_key', value: stripe.secretKey },
      { key: 'webhook_signing_secret', value: 'whsec_x' },
    ],
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
  });
  expect(res.statusCode, res.body).toBe(201);
  stripeId = res.json().id;
});
afterAll(async () => {
  await t.close();
  await stripe.stop();
});

describe('sandbox connectors', () => {
  it('refuses to configure mock-card, naming the real card definitions', async () => {
    const res = await post('/payment-services', {
      display_name: 'Mock',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'm' }],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(
      error(400, 'bad_request', MOCK_CARD_REFUSAL, [
        {
          location: 'body',
          pointer: '/payment_service_definition_id',
          message: MOCK_CARD_REFUSAL,
          type: 'sandbox_connector',
        },
      ]),
    );
  });

  it('refuses mock-paypal, naming the real connector of its method', async () => {
    const res = await post('/payment-services', {
      display_name: 'PayPal',
      payment_service_definition_id: 'mock-paypal',
      fields: [{ key: 'merchant_id', value: 'm' }],
      accepted_currencies: ['EUR'],
      accepted_countries: ['GB'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'mock-paypal is a sandbox connector and is not available in production; use one of: paypal-paypal',
    );
  });

  it.each([
    ['mock-ideal', 'ideal', 'EUR', 'NL', 'use one of: adyen-ideal'],
    ['mock-gocardless', 'gocardless', 'GBP', 'GB', 'use one of: gocardless-gocardless'],
    ['mock-pix', 'pix', 'BRL', 'BR', 'use one of: dlocal-pix'],
    // Their real connectors (adyen-sepa, adyen-klarna) come with another change: either wording is right.
    ['mock-sepa', 'sepa', 'EUR', 'DE', null],
    ['mock-klarna', 'klarna', 'EUR', 'DE', null],
  ])('refuses %s, naming the real connectors of %s', async (id, _method, currency, country, instead) => {
    const res = await post('/payment-services', {
      display_name: id,
      payment_service_definition_id: id,
      fields: [{ key: 'merchant_id', value: 'm' }],
      accepted_currencies: [currency],
      accepted_countries: [country],
    });
    expect(res.statusCode).toBe(400);
    const message = res.json().message as string;
    expect(message.startsWith(`${id} is a sandbox connector and is not available in production; `)).toBe(true);
    if (instead) expect(message.endsWith(instead)).toBe(true);
  });

  it('refuses mock-paybybank, saying no production connector processes its method', async () => {
    const res = await post('/payment-services', {
      display_name: 'Bank',
      payment_service_definition_id: 'mock-paybybank',
      fields: [{ key: 'merchant_id', value: 'm' }],
      accepted_currencies: ['EUR'],
      accepted_countries: ['GB'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'mock-paybybank is a sandbox connector and is not available in production; no production connector processes paybybank yet',
    );
    const verify = await post('/payment-services/verify', {
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'm' }],
    });
    expect(verify.json()).toMatchObject({ status: 400, message: MOCK_CARD_REFUSAL });
  });

  it('lists no sandbox definition, and answers 404 saying why for one named', async () => {
    const list = await t.request({ method: 'GET', url: '/payment-service-definitions' });
    expect(list.json().items.map((d: { id: string }) => d.id)).toEqual([
      'adyen-card',
      'adyen-ideal',
      'adyen-klarna',
      'adyen-sepa',
      'braintree-card',
      'checkout-card',
      'dlocal-pix',
      'gocardless-gocardless',
      'paypal-paypal',
      'stripe-card',
    ]);
    const one = await t.request({ method: 'GET', url: '/payment-service-definitions/mock-card' });
    expect(one.json()).toEqual(error(404, 'not_found', MOCK_CARD_REFUSAL));
    // An unknown id lists the valid ids: the real ones only.
    const unknown = await t.request({ method: 'GET', url: '/payment-service-definitions/nope-card' });
    expect(unknown.json()).toEqual(
      error(
        404,
        'not_found',
        'unknown payment_service_definition_id "nope-card"; valid ids: adyen-card, adyen-ideal, adyen-klarna, adyen-sepa, braintree-card, checkout-card, dlocal-pix, gocardless-gocardless, paypal-paypal, stripe-card',
      ),
    );
  });

  it('refuses a payment on a sandbox payment service made before the switch: nothing is charged or written', async () => {
    const forced = await post('/transactions', {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_service_id: sandboxCard,
      payment_method: card(),
    });
    expect(forced.json()).toEqual(
      error(400, 'bad_request', MOCK_CARD_REFUSAL, [
        { location: 'body', pointer: '/payment_service_id', message: MOCK_CARD_REFUSAL, type: 'sandbox_connector' },
      ]),
    );
    const payout = await post('/payouts', {
      amount: 100,
      currency: 'USD',
      payment_service_id: sandboxCard,
      payment_method: card(),
    });
    expect(payout.json()).toMatchObject({ status: 400, message: MOCK_CARD_REFUSAL });
    const update = await t.request({
      method: 'PUT',
      url: `/payment-services/${sandboxCard}`,
      merchantAccountId: m,
      payload: { display_name: 'Renamed' },
    });
    expect(update.json()).toEqual(error(400, 'bad_request', MOCK_CARD_REFUSAL));
    const session = await post(`/payment-services/${sandboxCard}/sessions`, {});
    expect(session.json()).toEqual(error(400, 'bad_request', MOCK_CARD_REFUSAL));
    expect({
      transactions: await countOf('transactions'),
      attempts: await countOf('transaction_attempts'),
      payouts: await countOf('payouts'),
    }).toEqual({ transactions: 0, attempts: 0, payouts: 0 });
  });

  it('routes around the sandbox service to the real one, and answers 400 when only a sandbox one could take it', async () => {
    const paid = await post('/transactions', {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_method: card('4242424242424242'),
    });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({
      status: 'authorization_succeeded',
      payment_service: { id: stripeId },
      three_d_secure: null,
      anti_fraud_decision: null,
    });
    const actions = paid.json().actions ?? [];
    expect(JSON.stringify(actions)).not.toContain(sandboxCard);
    await seedSandboxPaymentService(t, m, 'mock-card', { currencies: ['EUR'], countries: ['GB'] });
    const none = await post('/transactions', { amount: 1000, currency: 'EUR', country: 'GB', payment_method: card() });
    expect(none.json()).toMatchObject({
      status: 400,
      message:
        'No active payment service accepts method card in EUR for country GB; configure one with POST /payment-services',
    });
  });

  it('warns at start-up naming the sandbox payment services left in the database', async () => {
    const warnings: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
    const count = await warnOfSandboxPaymentServices(t.deps, {
      warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }),
    });
    expect(count).toBeGreaterThanOrEqual(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toMatch(
      /^ENVIRONMENT=production and the database holds \d+ payment service\(s\) of sandbox connectors; they are refused/,
    );
    expect(warnings[0]!.obj.payment_services).toContainEqual({
      merchant_account_id: m,
      payment_service_id: sandboxCard,
      payment_service_definition_id: 'mock-card',
      display_name: 'Sandbox mock-card',
    });
  });
});

describe('simulated services', () => {
  it('refuses network tokens and the account updater, saying what is not configured', async () => {
    const stored = await post('/payment-methods', {
      method: 'card',
      number: '4111111111111111',
      expiration_date: '12/39',
    });
    expect(stored.statusCode, stored.body).toBe(201);
    const token = await post(`/payment-methods/${stored.json().id}/network-tokens`, {
      merchant_initiated: false,
      is_subsequent_payment: false,
    });
    expect(token.json()).toEqual(
      error(
        403,
        'forbidden',
        "The network token service: a sandbox simulation, not available in production; no network token service is configured: tokens from a provider that offers network tokenization (Stripe's or Adyen's) are not integrated yet",
      ),
    );
    const updater = await post('/account-updater/jobs', { payment_method_ids: [stored.json().id] });
    expect(updater.json()).toEqual(
      error(
        403,
        'forbidden',
        "The account updater: a sandbox simulation, not available in production; no real account updater is configured: a card network's or a provider's updater service is not integrated yet",
      ),
    );
    const rows = await sql<{
      n: string;
    }>`select (select count(*) from network_tokens where merchant_account_id = ${m}) + (select count(*) from account_updater_jobs where merchant_account_id = ${m}) as n`.execute(
      t.deps.db,
    );
    expect(Number(rows.rows[0]!.n)).toBe(0);
  });

  it('never runs the simulated 3DS server: a provider that authenticates is left to it, any other is refused', async () => {
    const challenged = await post('/transactions', {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_service_id: stripeId,
      payment_method: card('4000000000003220'),
    });
    expect(challenged.statusCode, challenged.body).toBe(201);
    expect(challenged.json()).toMatchObject({ payment_service: { id: stripeId }, three_d_secure: null });
    const braintree = await seedSandboxPaymentService(t, m, 'braintree-card', {
      threeDSecure: true,
      fields: { environment: 'sandbox', merchant_id: 'bt', public_key: 'pk', private_key: 'sk' },
    });
    const before = await countOf('transactions');
    const res = await post('/transactions', {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_service_id: braintree,
      payment_method: card(),
    });
    expect(res.json()).toEqual(
      error(
        403,
        'forbidden',
        `The 3DS server: a sandbox simulation, not available in production; the payment service ${braintree} (braintree-card) has three_d_secure_enabled but its provider does not authenticate cards itself: send three_d_secure_data from your own 3DS server, or turn three_d_secure_enabled off`,
      ),
    );
    expect(await countOf('transactions')).toBe(before);
    const scenario = await post('/three-ds-scenarios', {
      conditions: { amount: 1 },
      outcome: { version: '2.2.0', authentication: { transaction_status: 'Y' } },
    });
    expect(scenario.json()).toEqual(
      error(
        403,
        'forbidden',
        "3DS scenarios: a sandbox simulation, not available in production; they steer the sandbox's simulated 3DS server only; in production the provider authenticates cards, or you send three_d_secure_data from your own 3DS server",
      ),
    );
  });

  it('refuses every call of the mock gift card service', async () => {
    const message =
      'The gift card service (mock-gift-card): a sandbox simulation, not available in production; no production gift card service is integrated yet, so gift cards cannot be stored, checked, activated, issued or redeemed';
    const calls = [
      post('/gift-cards', { number: '6036281000000000001', pin: '1234' }),
      post('/gift-cards/balances', { items: [{ number: '6036281000000000001', pin: '1234' }] }),
      post('/gift-cards/activations', { number: '6036282000000000001', pin: '1234' }),
      post('/gift-cards/issuances', { theme: 'birthday', amount: 100, currency: 'USD' }),
      post('/transactions', {
        amount: 500,
        currency: 'USD',
        gift_cards: [{ number: '6036281000000000001', pin: '1234', amount: 500 }],
      }),
    ];
    for (const res of await Promise.all(calls)) expect(res.json()).toEqual(error(403, 'forbidden', message));
  });
});

describe('sandbox pages', () => {
  it('are not served', async () => {
    for (const url of [
      `/sandbox/approvals/${m}/${sandboxCard}`,
      `/sandbox/challenges/${m}/${sandboxCard}`,
      '/sandbox/paze/checkout?state=x',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
