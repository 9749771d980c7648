import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { signedNotification, type FakeNotificationItem } from '../fakes/adyen-fake-webhooks.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';

/**
 * SEPA Direct Debit through Adyen's Hosted Checkout, through our API against the local Adyen fake:
 * the `adyen-sepa` service, sepa offered among the payment options for EUR in its countries only, a
 * session whose page takes the buyer's IBAN, captured on the buyer's return; the debit charged back
 * days later by Adyen's signed CHARGEBACK webhook; a buyer who never comes back settled by the
 * AUTHORISATION webhook through our signed reference; forged webhooks refused with nothing changed.
 */
let t: TestApp;
let fake: AdyenFake;
let m: string;
let service: string;
const HMAC = 'CD'.repeat(32);
const bodies: string[] = [];

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
      display_name: 'SEPA',
      payment_service_definition_id: 'adyen-sepa',
      fields: Object.entries(fields).map(([key, value]) => ({ key, value })),
      accepted_currencies: ['EUR'],
      accepted_countries: ['DE', 'FR', 'NL'],
    },
  });
  bodies.push(res.body);
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ payment_service_definition_id: 'adyen-sepa', method: 'sepa' });
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
    intent: 'capture',
    payment_method: { method: 'sepa', country: 'DE', currency: 'EUR', redirect_url: 'https://shop.example/done' },
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};

/** The buyer on Adyen's page gives an IBAN and pays (Y) or cancels (N); Adyen's redirect back. */
async function atAdyen(txn: { payment_method: { approval_url: string } }, answer: 'Y' | 'N') {
  const page = await fetch(`${txn.payment_method.approval_url}?answer=${answer}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get('location')!);
  expect(back.pathname).toMatch(/^\/connector-returns\//);
  expect(back.searchParams.get('sessionResult')).toEqual(expect.any(String));
  return back;
}

const returnTo = (back: URL) => t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });

const deliver = (items: FakeNotificationItem[], key = HMAC) =>
  t.app.inject({
    method: 'POST',
    url: `/merchant-accounts/${m}/payment-services/${service}/webhooks`,
    headers: { 'content-type': 'application/json' },
    payload: signedNotification(items, key),
  });

const item = (eventCode: string, psp: string, extra: Partial<FakeNotificationItem> = {}): FakeNotificationItem => ({
  pspReference: psp,
  merchantAccountCode: ADYEN_FAKE_MERCHANT,
  merchantReference: 'ref',
  amount: { value: 1000, currency: 'EUR' },
  eventCode,
  success: 'true',
  ...extra,
});

describe('SEPA Direct Debit through Adyen', () => {
  it('is offered among the payment options for EUR in the service countries only', async () => {
    const options = async (currency: string, country: string) =>
      (await call('POST', '/payment-options', { currency, country, amount: 1000 })).json().items;
    expect(await options('EUR', 'DE')).toContainEqual(expect.objectContaining({ method: 'sepa', mode: 'redirect' }));
    expect((await options('EUR', 'US')).map((o: { method: string }) => o.method)).not.toContain('sepa');
    expect((await options('USD', 'DE')).map((o: { method: string }) => o.method)).not.toContain('sepa');
  });

  it("takes the IBAN on Adyen's page, is captured on the buyer's return, refunds part, and is charged back days later", async () => {
    const txn = await pay({
      connection_options: { 'adyen-sepa': { autoRescue: true, maxDaysToRescue: 10, ownerName: 'A. Schmidt' } },
    });
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      method: 'sepa',
      payment_method: { approval_url: expect.stringContaining(`${fake.url}/hosted/CS`) },
    });
    expect(fake.bodies('/v71/sessions').at(-1)).toMatchObject({
      mode: 'hosted',
      allowedPaymentMethods: ['sepadirectdebit'],
      amount: { value: 1000, currency: 'EUR' },
      captureDelayHours: 0,
      countryCode: 'DE',
      returnUrl: expect.stringContaining('/connector-returns/'),
      additionalData: { autoRescue: 'true', maxDaysToRescue: '10' },
      merchantOrderReference: expect.any(String),
    });
    const returned = await returnTo(await atAdyen(txn, 'Y'));
    expect(returned.statusCode, returned.body).toBe(200);
    expect(returned.headers.refresh).toContain(`https://shop.example/done?transaction_id=${txn.id}`);
    const paid = await get(txn.id);
    expect(paid).toMatchObject({ status: 'capture_succeeded', captured_amount: 1000, disputed: false });
    expect(paid.payment_service_transaction_id).toMatch(/^PSP/);

    const refund = await call('POST', `/transactions/${txn.id}/refunds`, { amount: 300 });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'processing', amount: 300 });
    expect(fake.bodies('/refunds').at(-1)).toMatchObject({ amount: { value: 300, currency: 'EUR' } });

    // Days later the buyer's bank returns the debit (AM04, insufficient funds): Adyen's CHARGEBACK.
    const chargeback = item('CHARGEBACK', 'DSP0000000000001', {
      originalReference: paid.payment_service_transaction_id,
      reason: 'AM04',
    });
    const forged = await deliver([chargeback], 'EF'.repeat(32));
    expect(forged.statusCode).toBe(401);
    expect(await get(txn.id)).toMatchObject({ disputed: false });
    const res = await deliver([chargeback]);
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await get(txn.id)).toMatchObject({ status: 'capture_succeeded', disputed: true });
    const events = (await call('GET', `/transactions/${txn.id}/events`)).json().items as Array<{ name: string }>;
    expect(events.map((e) => e.name)).toContain('payment-connector-report-chargeback-posted');
  });

  it('settles a payment whose buyer never came back by the signed AUTHORISATION webhook, found by our reference', async () => {
    const txn = await pay();
    await atAdyen(txn, 'Y'); // paid at Adyen, the browser closed before our return address
    const session = fake.sessions.get(txn.payment_service_transaction_id)!;
    const authorisation = item('AUTHORISATION', session.pspReference!, {
      merchantReference: session.reference,
      additionalData: { checkoutSessionId: session.id },
    });
    // Signed for another reference: 401, and the transaction is as it was.
    const forged = signedNotification([{ ...authorisation, merchantReference: 'other' }], HMAC).replace(
      '"merchantReference":"other"',
      `"merchantReference":"${session.reference}"`,
    );
    const refused = await t.app.inject({
      method: 'POST',
      url: `/merchant-accounts/${m}/payment-services/${service}/webhooks`,
      headers: { 'content-type': 'application/json' },
      payload: forged,
    });
    expect(refused.statusCode).toBe(401);
    expect(await get(txn.id)).toMatchObject({ status: 'buyer_approval_pending' });
    const res = await deliver([authorisation]);
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(await get(txn.id)).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 1000,
      payment_service_transaction_id: session.pspReference,
    });
  });

  it("changes nothing when a buyer brings another payment's session result back to this one", async () => {
    const paid = await pay();
    const other = await atAdyen(paid, 'Y');
    const unpaid = await pay();
    const attempt = new URL(fake.bodies('/v71/sessions').at(-1)!.returnUrl).pathname;
    const res = await t.app.inject({ method: 'GET', url: `${attempt}${other.search}` });
    expect(res.statusCode).toBe(200);
    expect(await get(unpaid.id)).toMatchObject({ status: 'buyer_approval_pending', captured_amount: 0 });
  });

  it('declines a payment the buyer cancelled on the page, and refuses intent authorize without calling Adyen', async () => {
    const txn = await pay();
    await returnTo(await atAdyen(txn, 'N'));
    expect(await get(txn.id)).toMatchObject({ status: 'authorization_declined' });
    const before = fake.bodies('/v71/sessions').length;
    expect((await pay({ intent: 'authorize' })).status).toBe('authorization_failed');
    expect(fake.bodies('/v71/sessions').length).toBe(before);
  });

  it('keeps the API key and HMAC key out of every answer, row and log', async () => {
    await expectNoSecrets(t, bodies, [ADYEN_FAKE_KEY, HMAC]);
  });
});
