import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../../../test/fakes/adyen-fake.ts';
import { ConnectorError, type AuthorizeRequest, type SyncRequest } from '../connector.ts';
import { providerRequest } from '../provider-http.ts';
import { AdyenCardConnector } from './adyen.connector.ts';
import { ADYEN_HOSTS } from './adyen.definition.ts';

const PAN = '4111111145551142';
let fake: AdyenFake;
let adyen: AdyenCardConnector;
const credentials = { api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT, hmac_key: 'AA'.repeat(32) };

beforeAll(async () => {
  fake = await startAdyenFake();
  fake.slowMs = 1500;
  adyen = new AdyenCardConnector({ baseUrls: { 'adyen-card': fake.baseUrl }, timeoutMs: 500 });
});
afterAll(async () => fake.close());

function authorization(overrides: Partial<AuthorizeRequest> = {}): AuthorizeRequest {
  return {
    idempotencyKey: randomUUID(),
    credentials,
    options: null,
    reference: 'ref1',
    amount: 1000,
    currency: 'EUR',
    country: 'NL',
    intent: 'authorize',
    instrument: { kind: 'card', number: PAN, expirationDate: '03/30', securityCode: '737', scheme: 'visa' },
    merchantInitiated: false,
    isSubsequentPayment: false,
    paymentSource: 'ecommerce',
    threeDSecure: null,
    approvalBaseUrl: 'https://svc.example',
    merchantAccountId: 'm1',
    redirectUrl: null,
    ...overrides,
  };
}

const syncOf = (request: AuthorizeRequest, extra: Partial<SyncRequest> = {}): SyncRequest => ({
  idempotencyKey: request.idempotencyKey,
  credentials,
  options: null,
  operation: 'authorize',
  providerTransactionId: null,
  reference: request.reference,
  amount: request.amount,
  currency: request.currency,
  payment: { method: 'card', bin: '411111', last4: '1142', authorizedAmount: request.amount },
  intent: request.intent,
  buyerApproved: null,
  ...extra,
});

const lastRequest = () => fake.requests.at(-1)!;
const hint = { method: 'card', bin: '411111', last4: '1142', authorizedAmount: 1000 };

describe('happy', () => {
  it('authorizes a card with manual capture, the attempt id as Idempotency-Key and the plain card fields', async () => {
    const request = authorization();
    const outcome = await adyen.authorize(request);
    expect(outcome).toMatchObject({
      status: 'authorized',
      providerTransactionId: expect.stringMatching(/^PSP/),
      authResponseCode: '064381',
      avsResponseCode: 'match',
      cvvResponseCode: 'match',
      errorCode: null,
    });
    expect(outcome.schemeTransactionId).toMatch(/^NTR/);
    const sent = lastRequest();
    expect(sent.headers).toMatchObject({ 'x-api-key': ADYEN_FAKE_KEY, 'idempotency-key': request.idempotencyKey });
    expect(JSON.parse(sent.body)).toMatchObject({
      merchantAccount: ADYEN_FAKE_MERCHANT,
      reference: 'ref1',
      amount: { value: 1000, currency: 'EUR' },
      additionalData: { manualCapture: 'true' },
      shopperInteraction: 'Ecommerce',
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', cvc: '737' },
      returnUrl: `https://svc.example/connector-returns/m1/${request.idempotencyKey}`,
    });
  });

  it("captures at once with intent capture, in Adyen's units (CLP with 2 decimals)", async () => {
    const outcome = await adyen.authorize(authorization({ intent: 'capture', amount: 1500, currency: 'CLP' }));
    expect(outcome.status).toBe('captured');
    expect(JSON.parse(lastRequest().body)).toMatchObject({
      captureDelayHours: 0,
      amount: { value: 150000, currency: 'CLP' },
    });
    expect(JSON.parse(lastRequest().body).additionalData).toBeUndefined();
  });

  it('stores a card and pays with it (shopperReference, storedPaymentMethodId, recurring model)', async () => {
    const tokenized = await adyen.tokenize({
      idempotencyKey: 'pst-1',
      credentials,
      options: null,
      card: { number: PAN, expirationDate: '03/30', securityCode: '737' },
      redirectUrl: 'https://shop.example/back',
    });
    expect(tokenized).toMatchObject({ status: 'succeeded', token: expect.stringMatching(/^pst-1\|SPM/) });
    expect(JSON.parse(lastRequest().body)).toMatchObject({
      amount: { value: 0, currency: 'EUR' },
      storePaymentMethod: true,
      shopperReference: 'pst-1',
      recurringProcessingModel: 'CardOnFile',
    });
    const outcome = await adyen.authorize(
      authorization({
        instrument: { kind: 'payment-service-token', token: tokenized.token! },
        merchantInitiated: true,
      }),
    );
    expect(outcome.status).toBe('authorized');
    expect(JSON.parse(lastRequest().body)).toMatchObject({
      paymentMethod: { type: 'scheme', storedPaymentMethodId: tokenized.token!.split('|')[1] },
      shopperReference: 'pst-1',
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'UnscheduledCardOnFile',
    });
  });

  it('finds a tokenization again by its idempotency key (the same token), or proves it never arrived', async () => {
    const card = { number: PAN, expirationDate: '03/30', securityCode: null };
    const first = await adyen.tokenize({
      idempotencyKey: 'pst-2',
      credentials,
      options: null,
      card,
      redirectUrl: 'https://shop.example/back',
    });
    expect(
      await adyen.syncToken({
        idempotencyKey: 'pst-2',
        credentials,
        options: null,
        card: { bin: '411111', last4: '1142' },
      }),
    ).toMatchObject({ status: 'succeeded', token: first.token });
    expect(
      await adyen.syncToken({
        idempotencyKey: 'pst-never',
        credentials,
        options: null,
        card: { bin: '411111', last4: '1142' },
      }),
    ).toMatchObject({ status: 'not_found', token: null });
  });

  it('asks again about a capture, refund or cancel by re-posting its first request to the payment', async () => {
    const paid = await adyen.authorize(authorization({ amount: 3000 }));
    const base = {
      credentials,
      options: null,
      payment: { ...hint, authorizedAmount: 3000 },
      providerTransactionId: paid.providerTransactionId!,
      reference: 'ref1',
      currency: 'EUR',
    };
    const capture = { ...base, idempotencyKey: randomUUID(), amount: 1000, final: false };
    const captured = await adyen.capture(capture);
    const refund = { ...base, idempotencyKey: randomUUID(), reference: 'refund-ref', amount: 400, reason: null };
    const refunded = await adyen.refund(refund);
    const reused = fake.reusedWithOtherBody.length;
    const again = (
      operation: 'capture' | 'refund',
      call: typeof capture | typeof refund,
      own: string | null,
    ): SyncRequest => ({
      ...syncOf(authorization()),
      idempotencyKey: call.idempotencyKey,
      operation,
      providerTransactionId: own,
      paymentProviderTransactionId: paid.providerTransactionId,
      reference: call.reference,
      amount: call.amount,
    });
    expect(await adyen.sync(again('capture', capture, captured.providerCaptureId))).toMatchObject({
      status: 'pending',
    });
    expect(await adyen.sync(again('refund', refund, refunded.providerRefundId))).toMatchObject({ status: 'pending' });
    expect(lastRequest().path).toBe(`/v71/payments/${paid.providerTransactionId}/refunds`);
    expect(fake.reusedWithOtherBody.slice(reused)).toEqual([]);
  });

  it('captures in part, refunds and voids: received by Adyen, pending until its webhook', async () => {
    const paid = await adyen.authorize(authorization({ amount: 3000 }));
    const base = {
      credentials,
      options: null,
      payment: { ...hint, authorizedAmount: 3000 },
      providerTransactionId: paid.providerTransactionId!,
      reference: 'ref1',
      currency: 'EUR',
    };
    const capture = await adyen.capture({ ...base, idempotencyKey: randomUUID(), amount: 1000, final: false });
    expect(capture).toMatchObject({ status: 'pending', providerCaptureId: expect.stringMatching(/^PSP/) });
    expect(lastRequest().path).toBe(`/v71/payments/${paid.providerTransactionId}/captures`);
    const refund = await adyen.refund({ ...base, idempotencyKey: randomUUID(), amount: 400, reason: null });
    expect(refund).toMatchObject({ status: 'processing', providerRefundId: expect.stringMatching(/^PSP/) });
    const other = await adyen.authorize(authorization());
    expect(
      await adyen.void({ ...base, providerTransactionId: other.providerTransactionId!, idempotencyKey: randomUUID() }),
    ).toMatchObject({ status: 'pending' });
  });

  it('sends the buyer to 3DS and completes the payment with the redirectResult of the return', async () => {
    const request = authorization({ amount: 2300 });
    const outcome = await adyen.authorize(request);
    expect(outcome).toMatchObject({
      status: 'buyer_approval_pending',
      approvalUrl: expect.stringContaining(`${fake.url}/3ds/`),
    });
    const page = await fetch(`${outcome.approvalUrl}?answer=Y`, { redirect: 'manual' });
    const back = new URL(page.headers.get('location')!);
    expect(back.pathname).toBe(`/connector-returns/m1/${request.idempotencyKey}`);
    const done = await adyen.sync(
      syncOf(request, { returnParams: { redirectResult: back.searchParams.get('redirectResult')! } }),
    );
    expect(done).toMatchObject({ status: 'authorized', providerTransactionId: expect.stringMatching(/^PSP/) });
    expect(lastRequest()).toMatchObject({
      path: '/v71/payments/details',
      headers: { 'idempotency-key': `${request.idempotencyKey}-details` },
    });
  });

  it('finds a payment whose answer was lost by asking again with its idempotency key', async () => {
    const request = authorization({ amount: 2409 });
    await expect(adyen.authorize(request)).rejects.toMatchObject({ kind: 'timeout' });
    const found = await adyen.sync(syncOf(request));
    expect(found).toMatchObject({ status: 'authorized', providerTransactionId: [...fake.payments.keys()].at(-1) });
    // The probe is the first request's key without the card: answered with the first reply.
    expect(fake.reusedWithOtherBody.at(-1)).toEqual({ key: request.idempotencyKey, path: '/v71/payments' });
    const never = await adyen.sync(syncOf(authorization()));
    expect(never).toMatchObject({ status: 'not_found' });
  });

  it('verifies credentials against Adyen', async () => {
    expect(await adyen.verifyCredentials(credentials)).toEqual({ ok: true, problems: [] });
    expect(lastRequest().path).toBe('/v71/paymentMethods');
  });
});

describe('errors', () => {
  it('maps refusals to standardized codes and keeps the raw ones', async () => {
    expect(await adyen.authorize(authorization({ amount: 2005 }))).toMatchObject({
      status: 'declined',
      errorCode: 'do_not_honor',
      rawResponseCode: '2',
      rawResponseDescription: 'Refused',
    });
    expect(await adyen.authorize(authorization({ amount: 2051 }))).toMatchObject({
      status: 'declined',
      errorCode: 'insufficient_funds',
      rawResponseCode: '12',
    });
    expect(await adyen.authorize(authorization({ amount: 2024 }))).toMatchObject({
      status: 'declined',
      errorCode: 'incorrect_cvv',
      cvvResponseCode: 'no_match',
    });
    expect(await adyen.authorize(authorization({ amount: 2101 }))).toMatchObject({
      status: 'declined',
      errorCode: 'invalid_card_number',
      rawResponseCode: '101',
    });
  });

  it('classifies HTTP failures: 401 invalid_request, 429 unavailable, 500 and slow answers unknown (timeout)', async () => {
    await expect(
      adyen.authorize(authorization({ credentials: { ...credentials, api_key: 'wrong' } })),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    await expect(adyen.authorize(authorization({ amount: 2429 }))).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(adyen.authorize(authorization({ amount: 2500 }))).rejects.toMatchObject({ kind: 'timeout' });
    await expect(adyen.authorize(authorization({ amount: 2408 }))).rejects.toMatchObject({ kind: 'timeout' });
    const closed = new AdyenCardConnector({ baseUrls: { 'adyen-card': 'http://127.0.0.1:9/v71' } });
    await expect(closed.authorize(authorization())).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('declines a capture above what remains, and reports bad credentials as problems', async () => {
    const paid = await adyen.authorize(authorization());
    const capture = await adyen.capture({
      credentials,
      options: null,
      payment: hint,
      providerTransactionId: paid.providerTransactionId!,
      reference: 'r',
      currency: 'EUR',
      idempotencyKey: randomUUID(),
      amount: 5000,
      final: true,
    });
    expect(capture).toMatchObject({ status: 'declined', rawResponseCode: '167' });
    expect(await adyen.verifyCredentials({ ...credentials, api_key: 'wrong' })).toMatchObject({
      ok: false,
      problems: [{ key: 'api_key' }],
    });
    expect(await adyen.verifyCredentials({ ...credentials, merchant_account: 'Other' })).toMatchObject({
      ok: false,
      problems: [{ key: 'merchant_account' }],
    });
    expect(
      await adyen.verifyCredentials({ merchant_account: 'x', live_url_prefix: 'evil.example/x', hmac_key: 'zz' }),
    ).toMatchObject({ ok: false, problems: [{ key: 'api_key' }, { key: 'live_url_prefix' }, { key: 'hmac_key' }] });
  });
});

describe('security', () => {
  it("talks only to Adyen's hosts without the sandbox override, before any connection", async () => {
    const endpoint = { baseUrl: 'https://attacker.example/v71', allowedHosts: ADYEN_HOSTS, overridden: false };
    await expect(providerRequest(endpoint, 'Adyen', 'POST', '/payments', {}, {})).rejects.toBeInstanceOf(
      ConnectorError,
    );
    await expect(
      providerRequest(
        { ...endpoint, baseUrl: 'http://checkout-test.adyen.com/v71' },
        'Adyen',
        'POST',
        '/payments',
        {},
        {},
      ),
    ).rejects.toMatchObject({ kind: 'invalid_request' });
    const live = new AdyenCardConnector();
    expect(
      new URL(
        (live as unknown as { client: { baseUrl(c: Record<string, string>): string } }).client.baseUrl({
          live_url_prefix: '1797a841fbb37ca7-AdyenDemo',
        }),
      ).host,
    ).toBe('1797a841fbb37ca7-adyendemo-checkout-live.adyenpayments.com');
  });

  it('puts no card number, security code or API key in outcomes or errors', async () => {
    const seen: string[] = [];
    for (const amount of [1000, 2005, 2101, 2429, 2500]) {
      try {
        seen.push(JSON.stringify(await adyen.authorize(authorization({ amount }))));
      } catch (error) {
        seen.push(JSON.stringify({ message: (error as Error).message, raw: (error as ConnectorError).raw }));
      }
    }
    const text = seen.join('\n');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain('"737"');
    expect(text).not.toContain(ADYEN_FAKE_KEY);
  });
});
