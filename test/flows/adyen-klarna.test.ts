import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { signedNotification, type FakeNotificationItem } from '../fakes/adyen-fake-webhooks.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { createLink, openPage } from '../helpers/payment-links.ts';

/**
 * Klarna through Adyen, through our API against the local Adyen fake: the `adyen-klarna` service,
 * klarna offered among the payment options only with the order's lines and in Klarna's markets, a
 * payment with its lines approved on Klarna's page, a partial capture (one line for the part) and a
 * refund settled by Adyen's signed webhooks, a void, a cart that does not add up refused before any
 * call; a forged webhook refused with nothing changed; the secrets nowhere we answer, keep or log.
 */
let t: TestApp;
let fake: AdyenFake;
let m: string;
let service: string;
const HMAC = 'E7'.repeat(32);
const bodies: string[] = [];

const CART = [
  { name: 'Lamp', quantity: 2, unit_amount: 300, tax_amount: 96, sku: 'LAMP-1' },
  { name: 'Shade', quantity: 1, unit_amount: 500, discount_amount: 100, tax_amount: 64 },
];

beforeAll(async () => {
  fake = await startAdyenFake();
  t = await buildTestApp({ CONNECTOR_BASE_URLS: `adyen-card=${fake.baseUrl}` });
  m = await createMerchantAccount(t.deps);
  const fields = { api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: HMAC };
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Klarna',
      payment_service_definition_id: 'adyen-klarna',
      fields: Object.entries(fields).map(([key, value]) => ({ key, value })),
      accepted_currencies: ['EUR', 'SEK'],
      accepted_countries: ['DE', 'SE'],
    },
  });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ payment_service_definition_id: 'adyen-klarna', method: 'klarna' });
  service = res.json().id;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function call(method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await t.request({ method, url, merchantAccountId: m, ...(payload ? { payload } : {}) });
  bodies.push(res.body);
  return res;
}

const get = async (id: string) => (await call('GET', `/transactions/${id}`)).json();

const pay = async (body: Record<string, unknown> = {}) => {
  const res = await call('POST', '/transactions', {
    amount: 1000,
    currency: 'EUR',
    country: 'DE',
    intent: 'authorize',
    cart_items: CART,
    buyer: { billing_details: { first_name: 'Erika', last_name: 'Mustermann', email_address: 'erika@example.com' } },
    payment_method: { method: 'klarna', country: 'DE', currency: 'EUR', redirect_url: 'https://shop.example/done' },
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};

/** The buyer on Klarna's page (Y approves, N is Klarna's refusal), then back at our return address. */
async function buyer(txn: { payment_method: { approval_url: string } }, answer: 'Y' | 'N') {
  const page = await fetch(`${txn.payment_method.approval_url}?answer=${answer}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get('location')!);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

const deliver = (items: FakeNotificationItem[], key = HMAC) =>
  t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${service}/webhooks`,
    headers: { 'content-type': 'application/json' },
    payload: signedNotification(items, key),
  });

const modification = (eventCode: string, psp: string, own: string, value: number): FakeNotificationItem => ({
  pspReference: own,
  originalReference: psp,
  merchantAccountCode: ADYEN_FAKE_MERCHANT,
  merchantReference: 'ref',
  amount: { value, currency: 'EUR' },
  eventCode,
  success: 'true',
});

describe('Klarna through Adyen', () => {
  it("is offered among the payment options with the order's lines, in Klarna's markets only", async () => {
    const methods = async (body: Record<string, unknown>) =>
      (
        (await call('POST', '/payment-options', { amount: 1000, ...body })).json().items as Array<{ method: string }>
      ).map((o) => o.method);
    expect(await methods({ currency: 'EUR', country: 'DE', cart_items: CART })).toContain('klarna');
    expect(await methods({ currency: 'EUR', country: 'DE' })).not.toContain('klarna');
    expect(await methods({ currency: 'USD', country: 'DE', cart_items: CART })).not.toContain('klarna');
    expect(await methods({ currency: 'EUR', country: 'US', cart_items: CART })).not.toContain('klarna');
  });

  it("is approved on Klarna's page, captured in part and refunded, each settled by Adyen's signed webhook", async () => {
    const txn = await pay();
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      method: 'klarna',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/3ds/`) },
    });
    expect(fake.bodies('/v71/payments').at(-1)).toMatchObject({
      paymentMethod: { type: 'klarna' },
      countryCode: 'DE',
      shopperEmail: 'erika@example.com',
      shopperName: { firstName: 'Erika', lastName: 'Mustermann' },
      additionalData: { manualCapture: 'true' },
      lineItems: [
        {
          description: 'Lamp',
          quantity: 2,
          amountIncludingTax: 300,
          taxAmount: 48,
          amountExcludingTax: 252,
          sku: 'LAMP-1',
        },
        { description: 'Shade', quantity: 1, amountIncludingTax: 500, taxAmount: 64, amountExcludingTax: 436 },
        { description: 'Discount: Shade', quantity: 1, amountIncludingTax: -100 },
      ],
    });
    const returned = await buyer(txn, 'Y');
    expect(returned.statusCode, returned.body).toBe(200);
    const approved = await get(txn.id);
    expect(approved).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 1000 });

    const capture = await call('POST', `/transactions/${txn.id}/capture`, { amount: 600 });
    expect(capture.statusCode, capture.body).toBe(200);
    expect(await get(txn.id)).toMatchObject({ status: 'capture_pending' });
    const sent = fake.bodies('/captures').at(-1)!;
    expect(sent).toMatchObject({ amount: { value: 600, currency: 'EUR' } });
    expect(sent.lineItems).toEqual([
      expect.objectContaining({ quantity: 1, amountIncludingTax: 600, taxAmount: 96, amountExcludingTax: 504 }),
    ]);
    const psp = approved.payment_service_transaction_id;
    const captured = modification('CAPTURE', psp, 'CAP0000000000001', 600);
    expect((await deliver([captured], 'AB'.repeat(32))).statusCode).toBe(401);
    expect(await get(txn.id)).toMatchObject({ status: 'capture_pending' });
    expect((await deliver([captured])).statusCode).toBeLessThan(300);
    expect(await get(txn.id)).toMatchObject({ status: 'capture_succeeded', captured_amount: 600 });

    const refund = await call('POST', `/transactions/${txn.id}/refunds`, { amount: 200 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 200 });
    expect(fake.bodies('/refunds').at(-1)!.lineItems).toEqual([
      expect.objectContaining({ description: 'Partial refund of the order', amountIncludingTax: 200 }),
    ]);
    const refundPsp = refund.json().payment_service_refund_id;
    expect((await deliver([modification('REFUND', psp, refundPsp, 200)])).statusCode).toBeLessThan(300);
    const refunds = (await call('GET', `/transactions/${txn.id}/refunds`)).json();
    expect(refunds.items).toEqual([expect.objectContaining({ status: 'succeeded', amount: 200 })]);
  });

  it("voids an approved payment (pending until Adyen's CANCELLATION webhook)", async () => {
    const txn = await pay();
    await buyer(txn, 'Y');
    const voided = await call('POST', `/transactions/${txn.id}/void`);
    expect(voided.statusCode, voided.body).toBe(200);
    const psp = (await get(txn.id)).payment_service_transaction_id;
    expect(fake.bodies(`/${psp}/cancels`)).toHaveLength(1);
    expect((await deliver([modification('CANCELLATION', psp, 'CAN0000000000001', 1000)])).statusCode).toBeLessThan(300);
    expect(await get(txn.id)).toMatchObject({ status: 'authorization_voided' });
  });

  it('declines a payment Klarna refused, and fails one whose lines do not add up without calling Adyen', async () => {
    const refused = await pay();
    await buyer(refused, 'N');
    expect(await get(refused.id)).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
    const before = fake.bodies('/v71/payments').length;
    const wrong = await pay({ amount: 1200 });
    expect(wrong.status).toBe('authorization_failed');
    expect(fake.bodies('/v71/payments').length).toBe(before);
  });

  it("pays a payment link with the order's lines on Klarna's page", async () => {
    const link = await createLink(t, m, { amount: 1000, currency: 'EUR', country: 'DE', cart_items: CART });
    const { res, path, token } = await openPage(t, link.url);
    expect(res.body).toMatch(/data-method="klarna"/);
    const outcome = (
      await t.app.inject({
        method: 'POST',
        url: `${path}/payments`,
        headers: { 'x-payment-link-token': token },
        payload: { method: 'klarna' },
      })
    ).json();
    expect(outcome).toMatchObject({
      outcome: 'pending',
      transaction_status: 'buyer_approval_pending',
      next_url: expect.stringContaining(`${fake.url}/3ds/`),
    });
    expect(fake.bodies('/v71/payments').at(-1)!.lineItems).toHaveLength(3); // two items and a discount
  });

  it('keeps the API key and HMAC key out of every answer, row and log', async () => {
    await expectNoSecrets(t, bodies, [ADYEN_FAKE_KEY, HMAC]);
  });
});
