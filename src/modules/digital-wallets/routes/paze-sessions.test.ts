import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../../cli/token.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { chooseCard, localPath, pazeCall, pazeDance, registerPaze } from '../../../../test/helpers/paze.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { decryptPazeToken } from '../../../wallets/paze.ts';
import { signSessionToken } from '../../../wallets/paze-sandbox.ts';
import { sandboxPazeKeys } from '../../../wallets/sandbox-keys.ts';

/**
 * The Paze session operations through HTTP: the web session's configuration, and the sandbox's
 * simulated Paze (mobile session, create, its checkout page, review, complete). The payment with
 * the completeResponse is in test/flows/paze-payments.test.ts.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ PAZE_CLIENT_ID: 'SVC-PAZE-CLIENT', PAZE_CLIENT_NAME: 'Svc Payments' });
});
afterAll(async () => t.close());

const sandboxTrust = () => ({
  keys: [{ kid: sandboxPazeKeys().signingKeyId, key: createPublicKey(sandboxPazeKeys().signingKey) }],
  now: new Date(),
});

async function mobileSession(m: string) {
  const res = await pazeCall(t, m, 'session', { source: 'mobile' });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function checkout(m: string, extra: Record<string, unknown> = {}) {
  const session = await mobileSession(m);
  const { id, name, profileId, accessToken, sessionId } = session;
  const res = await pazeCall(t, m, 'create', {
    client: { id, name, profileId },
    sessionId,
    accessToken,
    callbackURLScheme: 'shopapp',
    intent: 'REVIEW_AND_PAY',
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { ...session, url: res.json().pazeCheckoutUrl as string };
}

describe('happy', () => {
  it("web session: the instance's Paze client and the wallet's (simulated) profile, the same each time", async () => {
    const m = await createMerchantAccount(t.deps);
    await registerPaze(t, m);
    const res = await pazeCall(t, m, 'session', { domain_name: 'shop.example.com' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: 'SVC-PAZE-CLIENT',
      name: 'Svc Payments',
      profileId: expect.stringMatching(/^SANDBOX-PROFILE-[0-9A-F]{16}$/),
    });
    expect((await pazeCall(t, m, 'session', { source: 'web', domain_name: 'shop.example.com' })).json()).toEqual(
      res.json(),
    );
  });

  it("web session: the wallet's extra_configuration names its own client and profile; an embed token may ask", async () => {
    const m = await createMerchantAccount(t.deps);
    await registerPaze(t, m, {
      extra_configuration: { client_id: 'MERCHANT-CLIENT', client_name: 'Shop', profile_id: 'PROFILE-42' },
    });
    const embed = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['embed'],
      lifetimeSeconds: 600,
      embed: { merchant_account_id: m },
    });
    const res = await t.request({
      method: 'POST',
      url: '/digital-wallets/paze/session',
      token: embed,
      payload: { domain_name: 'shop.example.com' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ id: 'MERCHANT-CLIENT', name: 'Shop', profileId: 'PROFILE-42' });
  });

  it('the mobile dance: session, create, the checkout page, review, complete', async () => {
    const m = await createMerchantAccount(t.deps);
    await registerPaze(t, m);
    const { session, created, review, complete, sessionId } = await pazeDance(t, m, {
      card: 'mastercard-debit',
      transactionValue: { transactionAmount: '12.00', transactionCurrency: 'USD' },
    });
    expect(session).toEqual({
      id: 'SVC-PAZE-CLIENT',
      name: 'Svc Payments',
      profileId: expect.any(String),
      accessToken: expect.any(String),
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(created).toEqual({
      pazeCheckoutUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/sandbox\/paze\/checkout\?state=/),
      clientContext: expect.any(String),
      ewSID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      timestampISO8601: expect.any(String),
    });
    expect(review).toEqual({
      consumer: expect.objectContaining({
        firstName: 'Pat',
        lastName: 'Sandbox',
        emailAddress: 'pat.sandbox@example.com',
      }),
      shippingAddress: {
        line1: '1 Sandbox Way',
        line2: null,
        line3: null,
        city: 'Tampa',
        state: 'FL',
        zip: '33601',
        countryCode: 'US',
        deliveryContactDetails: {
          contactFullName: 'Pat Sandbox',
          contactPhoneNumber: { countryCode: '1', phoneNumber: '5555550100' },
        },
      },
      maskedCard: {
        panLastFour: '4444',
        paymentAccountReference: expect.stringMatching(/^V0010[0-9A-F]{24}$/),
        panExpirationMonth: '12',
        panExpirationYear: '2030',
        paymentCardDescriptor: 'Sandbox Bank Debit Mastercard',
        paymentCardType: 'DEBIT',
        paymentCardBrand: 'MASTERCARD',
        paymentCardNetwork: 'MASTERCARD',
        digitalCardData: {
          artUri: 'http://127.0.0.1:8080/assets/card-schemes/mastercard.svg',
          artHeight: 32,
          artWidth: 48,
        },
        billingAddress: {
          name: 'Pat Sandbox',
          line1: '1 Sandbox Way',
          line2: null,
          line3: null,
          city: 'Tampa',
          state: 'FL',
          zip: '33601',
          countryCode: 'US',
        },
      },
      links: {
        CHANGE_CARD: expect.stringContaining('/sandbox/paze/checkout?state='),
        CHANGE_SHIPPING_ADDRESS: expect.any(String),
      },
      code: expect.any(String),
    });
    // The card art is an image this server serves without a token, of the size the review gives.
    const art = await t.app.inject({ method: 'GET', url: localPath(review.maskedCard.digitalCardData.artUri) });
    expect(art.statusCode).toBe(200);
    expect(art.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(art.body).toContain('width="48" height="32"');
    expect(complete).toEqual({
      payloadId: expect.any(String),
      completeResponse: expect.any(String),
      securePayload: expect.any(String),
      clientContext: created.clientContext,
      ewSID: created.ewSID,
      timestampISO8601: expect.any(String),
    });
    // A real JWS(JWE(JWS)): the sandbox wallet key decrypts it, the sandbox Paze key signed it.
    const card = await decryptPazeToken(
      complete.completeResponse,
      { privateKey: sandboxPazeKeys().processingKey, profileId: session.profileId },
      sandboxTrust(),
    );
    expect(card).toMatchObject({
      kind: 'dpan',
      number: '5204245250001488',
      expirationDate: '12/30',
      amount: 1200,
      scheme: 'mastercard',
      tokenId: complete.payloadId,
    });
    expect(complete.completeResponse.split('.')[1]).toBeDefined();
    expect(JSON.parse(Buffer.from(complete.completeResponse.split('.')[1], 'base64url').toString())).toEqual({
      payloadId: complete.payloadId,
      sessionId,
      securedPayload: complete.securePayload,
    });
  });

  it('review: no shipping address or billing address when the checkout asked for none', async () => {
    const m = await createMerchantAccount(t.deps);
    await registerPaze(t, m);
    const { id, name, profileId, accessToken, sessionId } = await mobileSession(m);
    const created = await pazeCall(t, m, 'create', {
      client: { id, name, profileId },
      sessionId,
      accessToken,
      callbackURLScheme: 'shopapp',
      intent: 'REVIEW_AND_PAY',
      shippingPreference: 'NONE',
      billingPreference: 'NONE',
    });
    expect(created.statusCode, created.body).toBe(200);
    const { code } = await chooseCard(t, created.json().pazeCheckoutUrl, 'visa-credit');
    const review = await pazeCall(t, m, 'review', { sessionId, accessToken, code });
    expect(review.statusCode, review.body).toBe(200);
    expect(review.json()).toMatchObject({
      shippingAddress: null,
      maskedCard: {
        billingAddress: null,
        paymentCardBrand: 'VISA',
        paymentCardDescriptor: 'Sandbox Bank Visa Signature',
        digitalCardData: { artUri: expect.stringMatching(/\/assets\/card-schemes\/visa\.svg$/) },
      },
    });
    // The code of the review keeps the preferences: a second review answers the same.
    const again = await pazeCall(t, m, 'review', { sessionId, accessToken, code: review.json().code });
    expect(again.json()).toMatchObject({ shippingAddress: null, maskedCard: { billingAddress: null } });
  });

  it("complete encrypts to the wallet's own RSA key when it has one", async () => {
    const m = await createMerchantAccount(t.deps);
    const own = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const wallet = await registerPaze(t, m, {
      payment_processing_private_key: own.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    expect(wallet).toMatchObject({ payment_processing_key_configured: true });
    expect(JSON.stringify(wallet)).not.toContain('PRIVATE KEY');
    const { complete } = await pazeDance(t, m);
    expect(
      await decryptPazeToken(
        complete.completeResponse,
        { privateKey: own.privateKey, profileId: null },
        sandboxTrust(),
      ),
    ).toMatchObject({ number: '4895370012003478', eci: '07' });
    await expect(
      decryptPazeToken(
        complete.completeResponse,
        { privateKey: sandboxPazeKeys().processingKey, profileId: null },
        sandboxTrust(),
      ),
    ).rejects.toMatchObject({ reason: 'wrong_key' });
  });

  it("the checkout page lists the accepted networks' cards, no script, and the choice returns to the app's scheme", async () => {
    const m = await createMerchantAccount(t.deps);
    await registerPaze(t, m);
    const { url } = await checkout(m, {
      acceptedPaymentCardNetworks: ['VISA'],
      transactionValue: { transactionAmount: '5.39', transactionCurrency: 'USD' },
    });
    const page = await t.app.inject({ method: 'GET', url: localPath(url) });
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    // No framing: another site cannot overlay the card choice (clickjacking).
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).toContain('5.39 USD');
    expect(page.body).toContain('•••• 1111');
    expect(page.body).not.toContain('4444');
    expect(page.body).not.toMatch(/<script/i);
    const { callback } = await chooseCard(t, url, 'visa-declined');
    expect(callback).toMatch(/^shopapp:\/\/paze\?code=[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});

describe('errors', () => {
  let m: string;
  let session: Awaited<ReturnType<typeof mobileSession>>;
  beforeAll(async () => {
    m = await createMerchantAccount(t.deps);
    await registerPaze(t, m);
    session = await mobileSession(m);
  });
  const create = (extra: Record<string, unknown>) =>
    pazeCall(t, m, 'create', {
      client: { id: session.id, name: session.name, profileId: session.profileId },
      sessionId: session.sessionId,
      accessToken: session.accessToken,
      callbackURLScheme: 'shopapp',
      intent: 'REVIEW_AND_PAY',
      ...extra,
    });
  const expect400 = (res: { statusCode: number; body: string; json(): any }, pointer: string, message: string) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining(message),
      details: [{ pointer }],
    });
  };

  it('needs a Paze wallet, and domain_name for a web session', async () => {
    const bare = await createMerchantAccount(t.deps);
    expect((await pazeCall(t, bare, 'session', { domain_name: 'shop.example.com' })).json().message).toContain(
      'No paze digital wallet is registered',
    );
    expect400(await pazeCall(t, m, 'session', {}), '/domain_name', 'domain_name is required when source is web');
    expect((await pazeCall(t, m, 'session', { source: 'tablet' })).statusCode).toBe(422);
  });

  it("create checks the client, the intent's transaction value and the callback scheme, with 422s for every limit", async () => {
    expect400(
      await create({ client: { id: 'OTHER', name: 'x', profileId: session.profileId } }),
      '/client/id',
      'client.id must be the Paze client',
    );
    expect400(
      await create({ client: { id: session.id, name: 'x', profileId: 'OTHER' } }),
      '/client/profileId',
      'profile',
    );
    expect400(
      await create({ intent: 'EXPRESS_CHECKOUT' }),
      '/transactionValue',
      'transactionValue is required with intent EXPRESS_CHECKOUT',
    );
    expect400(await create({ callbackURLScheme: 'javascript' }), '/callbackURLScheme', "your app's URL scheme");
    const invalid: Array<[Record<string, unknown>, string | number]> = [
      [{ callbackURLScheme: 'my app' }, 'callbackURLScheme'],
      [{ callbackURLScheme: 'a'.repeat(41) }, 'callbackURLScheme'],
      [{ intent: 'PAY' }, 'intent'],
      [{ client: { id: 'x'.repeat(51), name: 'n', profileId: 'p' } }, 'id'],
      [{ sessionId: 's'.repeat(256) }, 'sessionId'],
      [{ cobrand: Array.from({ length: 11 }, () => ({ cobrandName: 'Bank' })) }, 'cobrand'],
      [{ acceptedPaymentCardNetworks: ['AMEX'] }, 0],
      [{ transactionValue: { transactionAmount: '5.399', transactionCurrency: 'USD' } }, 'transactionAmount'],
      [{ transactionType: 'REFUND' }, 'transactionType'],
    ];
    for (const [extra, field] of invalid) {
      const res = await create(extra);
      expect(res.statusCode, JSON.stringify(extra)).toBe(422);
      expect(res.json().detail.map((d: { loc: string[] }) => d.loc.at(-1))).toContain(field);
    }
  });

  it('refuses expired, foreign and mismatched session tokens, naming the field', async () => {
    const wallet = (await t.request({ method: 'GET', url: '/digital-wallets', merchantAccountId: m })).json().items[0];
    const expired = await signSessionToken(
      'access',
      { mid: m, wid: wallet.id, sid: session.sessionId },
      new Date(Date.now() - 3600_000),
    );
    expect400(await create({ accessToken: expired }), '/accessToken', 'accessToken has expired');
    expect400(await create({ accessToken: 'garbage' }), '/accessToken', "is not a token of this server's Paze session");
    const other = await mobileSession(m);
    expect400(await create({ accessToken: other.accessToken }), '/accessToken', 'belongs to another session');
    const foreign = await signSessionToken('access', { mid: 'someone-else', wid: wallet.id, sid: session.sessionId });
    expect400(await create({ accessToken: foreign }), '/accessToken', 'issued to another merchant account');
    const { url } = await checkout(m);
    const { code } = await chooseCard(t, url, 'visa-credit');
    // A code is no access token, and a code of another session does not review this one.
    expect400(await create({ accessToken: code }), '/accessToken', 'is not a token');
    expect400(
      await pazeCall(t, m, 'review', { sessionId: session.sessionId, accessToken: session.accessToken, code }),
      '/code',
      'belongs to another session',
    );
    expect(
      (
        await pazeCall(t, m, 'review', {
          sessionId: session.sessionId,
          accessToken: session.accessToken,
          code: 'c'.repeat(10241),
        })
      ).statusCode,
    ).toBe(422);
    expect(
      (await pazeCall(t, m, 'complete', { sessionId: session.sessionId, accessToken: session.accessToken, code }))
        .statusCode,
    ).toBe(422);
  });

  it('the checkout page refuses a bad state and a card of a network the checkout does not accept', async () => {
    const bad = await t.app.inject({ method: 'GET', url: '/sandbox/paze/checkout?state=nope' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].pointer).toBe('/state');
    const { url } = await checkout(m, { acceptedPaymentCardNetworks: ['VISA'] });
    const state = new URL(url).searchParams.get('state')!;
    const res = await t.app.inject({
      method: 'POST',
      url: `/sandbox/paze/checkout/cards/mastercard-debit?state=${state}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].pointer).toBe('/card_id');
  });

  it('production: the web session needs the Paze client and profile; the server API and the page are refused', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    try {
      const pm = await createMerchantAccount(production.deps);
      await registerPaze(production, pm);
      expect((await pazeCall(production, pm, 'session', { domain_name: 'shop.example.com' })).json().message).toContain(
        'set PAZE_CLIENT_ID and PAZE_CLIENT_NAME',
      );
      const wallet = (
        await production.request({ method: 'GET', url: '/digital-wallets', merchantAccountId: pm })
      ).json().items[0];
      await production.request({
        method: 'PUT',
        url: `/digital-wallets/${wallet.id}`,
        merchantAccountId: pm,
        payload: { extra_configuration: { client_id: 'C1', client_name: 'Shop' } },
      });
      expect((await pazeCall(production, pm, 'session', { domain_name: 'shop.example.com' })).json().message).toContain(
        'no extra_configuration.profile_id',
      );
      const mobile = await pazeCall(production, pm, 'session', { source: 'mobile' });
      expect(mobile.statusCode).toBe(400);
      expect(mobile.json().message).toContain("Paze's server API");
      const complete = await pazeCall(production, pm, 'complete', {
        sessionId: 's',
        accessToken: 'a',
        code: 'c',
        transactionType: 'PURCHASE',
      });
      expect(complete.json()).toMatchObject({
        status: 400,
        message: expect.stringContaining('does not implement it in production'),
      });
      expect((await production.app.inject({ method: 'GET', url: '/sandbox/paze/checkout?state=x' })).statusCode).toBe(
        404,
      );
      // Paying: the wallet needs its own RSA key, and the server Paze's signing keys.
      const pay = () =>
        production.request({
          method: 'POST',
          url: '/transactions',
          merchantAccountId: pm,
          payload: { amount: 100, currency: 'USD', payment_method: { method: 'paze', token: 'a.b.c' } },
        });
      expect((await pay()).json()).toMatchObject({
        status: 400,
        message: expect.stringContaining('add payment_processing_private_key'),
        details: [{ type: 'wallet_keys_missing' }],
      });
      const key = generateKeyPairSync('rsa', { modulusLength: 2048 })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString();
      expect(
        (
          await production.request({
            method: 'PUT',
            url: `/digital-wallets/${wallet.id}`,
            merchantAccountId: pm,
            payload: { payment_processing_private_key: key },
          })
        ).statusCode,
      ).toBe(200);
      expect((await pay()).json()).toMatchObject({
        status: 400,
        message: expect.stringContaining('PAZE_SIGNING_KEYS'),
        details: [{ type: 'wallet_keys_missing' }],
      });
    } finally {
      await production.close();
    }
  });
});

describe('security', () => {
  let m: string;
  beforeAll(async () => {
    m = await createMerchantAccount(t.deps);
  });
  const request = (url: string, payload: Record<string, unknown>) => () => ({
    method: 'POST' as const,
    url,
    headers: { 'x-svc-merchant-account-id': m },
    payload,
  });
  describe('session', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: request('/digital-wallets/paze/session', { domain_name: 'a.example.com' }),
    }));
  describe('create', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: request('/digital-wallets/paze/session/create', {
        client: { id: 'a', name: 'b', profileId: 'c' },
        sessionId: 's',
        accessToken: 'a',
        callbackURLScheme: 'app',
        intent: 'REVIEW_AND_PAY',
      }),
    }));
  describe('review', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: request('/digital-wallets/paze/session/review', { sessionId: 's', code: 'c', accessToken: 'a' }),
    }));
  describe('complete', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: request('/digital-wallets/paze/session/complete', {
        sessionId: 's',
        code: 'c',
        accessToken: 'a',
        transactionType: 'PURCHASE',
      }),
    }));

  it('another merchant account cannot use a session, a code or the wallet of this one', async () => {
    await registerPaze(t, m);
    const session = await mobileSession(m);
    const other = await createMerchantAccount(t.deps);
    expect((await pazeCall(t, other, 'session', { domain_name: 'a.example.com' })).json().message).toContain(
      'No paze digital wallet',
    );
    await registerPaze(t, other);
    const { url } = await checkout(m);
    const { code } = await chooseCard(t, url, 'visa-credit');
    const res = await pazeCall(t, other, 'complete', {
      sessionId: session.sessionId,
      accessToken: session.accessToken,
      code,
      transactionType: 'PURCHASE',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      message: expect.stringContaining('issued to another merchant account'),
      details: [{ pointer: '/accessToken' }],
    });
  });
});
