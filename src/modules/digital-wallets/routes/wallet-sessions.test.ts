import { createPublicKey } from 'node:crypto';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { sandboxWalletKeys } from '../../../wallets/sandbox-keys.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VALIDATION_URL = 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession';
const register = (merchantAccountId: string, provider: string, extra: Record<string, unknown> = {}) =>
  t.request({
    method: 'POST',
    url: '/digital-wallets',
    merchantAccountId,
    payload: { provider, merchant_name: 'Session Shop', accept_terms_and_conditions: true, ...extra },
  });
const appleSession = (merchantAccountId: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/digital-wallets/apple/session', merchantAccountId, payload });
const clickToPay = (payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/digital-wallets/click-to-pay/session', payload });

describe('happy', () => {
  it("Apple Pay: a simulated merchant session of Apple's shape, expiring after five minutes", async () => {
    const m = await createMerchantAccount(t.deps);
    await register(m, 'apple', {
      domain_names: ['shop.example.com'],
      merchant_display_name: 'Shop',
      apple_merchant_identifier: 'merchant.com.example',
    });
    const res = await appleSession(m, { validation_url: VALIDATION_URL, domain_name: 'Shop.Example.com' });
    expect(res.statusCode, res.body).toBe(200);
    const session = res.json();
    expect(session).toEqual({
      epochTimestamp: expect.any(Number),
      expiresAt: session.epochTimestamp + 300_000,
      merchantSessionIdentifier: expect.stringMatching(/^SSH[0-9A-F]{32}_SANDBOX$/),
      nonce: expect.stringMatching(/^[0-9a-f]{8}$/),
      merchantIdentifier: expect.stringMatching(/^[0-9A-F]{64}$/),
      domainName: 'shop.example.com',
      displayName: 'Shop',
      signature: expect.any(String),
      operationalAnalyticsIdentifier: expect.stringContaining('Shop:'),
      retries: 0,
      pspId: session.merchantIdentifier,
      simulated: true,
    });
  });

  it('Google Pay: the gateway merchant id and an ES256 JWT naming the origin', async () => {
    const m = await createMerchantAccount(t.deps);
    await register(m, 'google');
    const res = await t.request({
      method: 'POST',
      url: '/digital-wallets/google/session',
      merchantAccountId: m,
      payload: { origin_domain: 'shop.example.com' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ gateway_merchant_id: m, token: expect.any(String) });
    const { payload, protectedHeader } = await jwtVerify(
      res.json().token,
      createPublicKey(sandboxWalletKeys().google.authKey),
    );
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ merchantOrigin: 'shop.example.com', gatewayMerchantId: m });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('Click to Pay: no bearer token; the checkout session names the merchant account', async () => {
    const m = await createMerchantAccount(t.deps);
    const wallet = (await register(m, 'click-to-pay', { merchant_display_name: 'C2P Shop' })).json();
    const checkout = await t.request({ method: 'POST', url: '/checkout/sessions', merchantAccountId: m, payload: {} });
    expect(checkout.statusCode, checkout.body).toBe(201);
    const res = await clickToPay({ checkout_session_id: checkout.json().id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(wallet.fields);
  });

  it('payment options offer Apple Pay and Google Pay once the wallets are registered', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const methods = async () =>
      (
        await t.request({
          method: 'POST',
          url: '/payment-options',
          merchantAccountId: m,
          payload: { currency: 'USD', country: 'US' },
        })
      )
        .json()
        .items.map((o: { method: string }) => o.method);
    expect(await methods()).toEqual(['card']);
    await register(m, 'apple');
    await register(m, 'google');
    expect(await methods()).toEqual(['card', 'applepay', 'googlepay']);
    const options = (
      await t.request({ method: 'POST', url: '/payment-options', merchantAccountId: m, payload: { currency: 'USD' } })
    ).json().items;
    expect(options[2]).toMatchObject({
      method: 'googlepay',
      mode: 'googlepay',
      label: 'Google Pay',
      can_store_payment_method: false,
      can_delay_capture: true,
      context: { gateway: 'svc', gateway_merchant_id: m },
    });
    // No card service accepts JPY: no wallet either.
    expect(
      (
        await t.request({ method: 'POST', url: '/payment-options', merchantAccountId: m, payload: { currency: 'JPY' } })
      ).json().items,
    ).toEqual([]);
  });
});

describe('errors', () => {
  it("Apple Pay: only Apple gateway URLs, only the wallet's domains, only with a wallet", async () => {
    const m = await createMerchantAccount(t.deps);
    expect(
      (await appleSession(m, { validation_url: VALIDATION_URL, domain_name: 'shop.example.com' })).json().message,
    ).toContain('No apple digital wallet');
    await register(m, 'apple', { domain_names: ['shop.example.com'] });
    for (const url of [
      'https://evil.example.com/paymentSession',
      'http://apple-pay-gateway.apple.com/x',
      'https://169.254.169.254/latest',
      'https://apple-pay-gateway.apple.com.evil.io/x',
      'https://apple-pay-gateway.apple.com:8443/x',
    ]) {
      const res = await appleSession(m, { validation_url: url, domain_name: 'shop.example.com' });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().details[0].pointer).toBe('/validation_url');
    }
    const other = await appleSession(m, { validation_url: VALIDATION_URL, domain_name: 'other.example.com' });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toMatchObject({
      details: [{ pointer: '/domain_name' }],
      message: expect.stringContaining('POST /digital-wallets/'),
    });
    expect((await appleSession(m, { validation_url: VALIDATION_URL })).statusCode).toBe(422);
  });

  it('Google Pay needs a wallet; Click to Pay an existing checkout session and a wallet', async () => {
    const m = await createMerchantAccount(t.deps);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/digital-wallets/google/session',
          merchantAccountId: m,
          payload: { origin_domain: 'shop.example.com' },
        })
      ).statusCode,
    ).toBe(400);
    expect((await clickToPay({ checkout_session_id: '0190a0a0-0000-7000-8000-000000000000' })).statusCode).toBe(404);
    const checkout = await t.request({ method: 'POST', url: '/checkout/sessions', merchantAccountId: m, payload: {} });
    const res = await clickToPay({ checkout_session_id: checkout.json().id });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('no Click to Pay wallet');
    expect((await clickToPay({ checkout_session_id: 'nope' })).statusCode).toBe(422);
  });
});

describe('security', () => {
  let m: string;
  beforeAll(async () => {
    m = await createMerchantAccount(t.deps);
  });
  describe('apple session', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: () => ({
        method: 'POST',
        url: '/digital-wallets/apple/session',
        headers: { 'x-svc-merchant-account-id': m },
        payload: { validation_url: VALIDATION_URL, domain_name: 'a.example.com' },
      }),
    }));
  describe('google session', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: () => ({
        method: 'POST',
        url: '/digital-wallets/google/session',
        headers: { 'x-svc-merchant-account-id': m },
        payload: { origin_domain: 'a.example.com' },
      }),
    }));

  it("a merchant account's Apple Pay wallet does not answer for another account", async () => {
    await register(m, 'apple', { domain_names: ['mine.example.com'] });
    const other = await createMerchantAccount(t.deps);
    expect(
      (await appleSession(other, { validation_url: VALIDATION_URL, domain_name: 'mine.example.com' })).json().message,
    ).toContain('No apple digital wallet');
  });
});
