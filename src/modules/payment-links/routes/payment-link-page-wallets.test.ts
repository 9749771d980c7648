import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createLink, openPage, payWithSandboxWallet } from '../../../../test/helpers/payment-links.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { decryptApplePayToken } from '../../../wallets/apple-pay.ts';
import { decryptGooglePayToken } from '../../../wallets/google-pay.ts';
import { sandboxWalletKeys } from '../../../wallets/sandbox-keys.ts';
import { SANDBOX_WALLET_CARDS } from '../page/sandbox-wallet-cards.ts';

/**
 * Apple Pay and Google Pay on the hosted page, in the sandbox: the buttons follow the payment
 * options, the simulated sheet's cards become real sandbox tokens (for the sandbox keys or the
 * merchant's own), and the page pays with them through the same engine as POST /transactions.
 */

const HOST = 'pay.shop.example';
let t: TestApp;
const bodies: string[] = [];
beforeAll(async () => {
  t = await buildTestApp({ PUBLIC_URL: `https://${HOST}` });
});
afterAll(async () => t.close());

async function merchantWith(providers: Array<'apple' | 'google'>, extra: Record<string, Record<string, unknown>> = {}) {
  const { merchantAccountId } = await merchantWithMockCard(t);
  for (const provider of providers) {
    const res = await t.request({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId,
      payload: { provider, merchant_name: 'Wallet Shop', accept_terms_and_conditions: true, ...extra[provider] },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return merchantAccountId;
}

async function call(
  path: string,
  token: string,
  what: string,
  payload: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/${what}`,
    headers: { 'x-payment-link-token': token, ...headers },
    payload,
  });
  bodies.push(res.body);
  return res;
}

const transactionOf = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}`, merchantAccountId: m })).json();
const linkStatus = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/payment-links/${id}`, merchantAccountId: m })).json().status;
const pem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

let both: string;
beforeAll(async () => {
  both = await merchantWith(['apple', 'google'], { apple: { domain_names: [HOST] } });
});

describe('happy', () => {
  it('shows the Apple Pay and Google Pay buttons and the sandbox sheet exactly when payment options offer them', async () => {
    const { res } = await openPage(t, (await createLink(t, both)).url);
    const apple =
      /<button type="button" class="wallet wallet-applepay" data-wallet="applepay" data-request="([^"]+)">Pay with Apple Pay<\/button>/.exec(
        res.body,
      );
    expect(JSON.parse(apple![1]!.replace(/&#34;/g, '"'))).toEqual({
      countryCode: 'US',
      currencyCode: 'USD',
      supportedNetworks: ['visa', 'masterCard', 'amex', 'discover'],
      merchantCapabilities: ['supports3DS'],
      total: { label: 'Wallet Shop', amount: '10.00', type: 'final' },
    });
    expect(res.body).toMatch(
      /<button type="button" class="wallet wallet-googlepay" data-wallet="googlepay">Pay with Google Pay<\/button>/,
    );
    expect(res.body).toContain('<dialog id="wallet-sheet"');
    expect(res.body).toContain('Visa ending 1111');
    expect(res.body).toContain('id="card-number"');
    for (const card of SANDBOX_WALLET_CARDS) expect(res.body).not.toContain(card.number);
    expect(res.headers['content-security-policy']).not.toContain('google');
    const none = await merchantWith([]);
    expect((await openPage(t, (await createLink(t, none)).url)).res.body).not.toContain('data-wallet=');
    const onlyGoogle = (await openPage(t, (await createLink(t, await merchantWith(['google']))).url)).res.body;
    expect([onlyGoogle.includes('data-wallet="googlepay"'), onlyGoogle.includes('data-wallet="applepay"')]).toEqual([
      true,
      false,
    ]);
    // No card service takes JPY, so no wallet either; a link that stores the payment method takes no wallet token.
    for (const body of [{ currency: 'JPY' }, { store: true }])
      expect((await openPage(t, (await createLink(t, both, body)).url)).res.body).not.toContain('data-wallet=');
  });

  it.each(['es', 'pt-BR'])('renders the wallet block and sheet in %s', async (locale) => {
    const body = (await openPage(t, (await createLink(t, both, { locale })).url)).res.body;
    expect(body).toContain(locale === 'es' ? 'Pago exprés' : 'Pagamento rápido');
    expect(body).toContain(locale === 'es' ? 'Visa terminada en 1111' : 'Visa com final 1111');
  });

  it.each(['googlepay', 'applepay'] as const)(
    'pays with %s from the sheet: approved, return_url with the transaction',
    async (method) => {
      const link = await createLink(t, both, { return_url: 'https://shop.example/done', intent: 'capture' });
      const { res } = await payWithSandboxWallet(t, link.url, method);
      bodies.push(res.body);
      expect(res.statusCode, res.body).toBe(200);
      const outcome = res.json();
      expect(outcome).toMatchObject({
        outcome: 'paid',
        transaction_status: 'capture_succeeded',
        next_url: `https://shop.example/done?transaction_id=${outcome.transaction_id}&transaction_status=capture_succeeded`,
      });
      expect(await transactionOf(both, outcome.transaction_id)).toMatchObject({
        method,
        instrument_type: method,
        status: 'capture_succeeded',
        amount: 1000,
        payment_method: { method, label: '1111', scheme: 'visa' },
      });
      expect(await linkStatus(both, link.id)).toBe('completed');
    },
  );

  it('declines with a human message and lets the buyer pay again; PAN_ONLY pays as a card', async () => {
    const link = await createLink(t, both);
    const declined = (await payWithSandboxWallet(t, link.url, 'googlepay', 'visa-insufficient-funds')).res;
    expect(declined.json()).toMatchObject({
      outcome: 'declined',
      transaction_status: 'authorization_declined',
      page_message: 'Your card was declined: there are not enough funds. Try another card.',
      next_url: null,
    });
    expect(await linkStatus(both, link.id)).toBe('active');
    const paid = (await payWithSandboxWallet(t, link.url, 'googlepay', 'visa-pan-only')).res.json();
    expect(paid).toMatchObject({ outcome: 'paid' });
    expect(await transactionOf(both, paid.transaction_id)).toMatchObject({
      method: 'googlepay',
      instrument_type: 'googlepay',
      payment_method: { label: '4242', details: { bin: '42424242' } },
    });
  });

  it("makes tokens for the merchant's own processing keys, which decrypt them", async () => {
    const m = await merchantWith(['apple', 'google'], {
      apple: { payment_processing_private_key: pem(), apple_merchant_identifier: 'merchant.example.shop' },
      google: { payment_processing_private_key: pem(), google_merchant_id: 'BCR2DN4T' },
    });
    for (const method of ['applepay', 'googlepay'] as const) {
      // The wallet's own key decrypts (a token for the sandbox keys would be refused: "another payment processing key").
      const { res } = await payWithSandboxWallet(t, (await createLink(t, m)).url, method);
      expect(res.json(), method).toMatchObject({ outcome: 'paid' });
    }
  });

  it("answers the Apple Pay merchant validation for the page's host (simulated in the sandbox)", async () => {
    const { path, token } = await openPage(t, (await createLink(t, both)).url);
    const res = await call(path, token, 'apple-pay/session', {
      validation_url: 'https://apple-pay-gateway-cert.apple.com/paymentservices/startSession',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ domainName: HOST, displayName: 'Wallet Shop', simulated: true });
  });

  it("answers Google Pay's PaymentDataRequest: the sandbox gateway, or DIRECT to the wallet's own key", async () => {
    const { path, token } = await openPage(
      t,
      (await createLink(t, both, { merchant_name: 'Ada Tea', amount: 1250 })).url,
    );
    const res = await call(path, token, 'google-pay/session');
    expect(res.statusCode, res.body).toBe(200);
    const { environment, payment_data_request: request } = res.json();
    expect(environment).toBe('TEST');
    expect(request).toMatchObject({
      apiVersion: 2,
      apiVersionMinor: 0,
      merchantInfo: { merchantName: 'Ada Tea', merchantOrigin: HOST },
      allowedPaymentMethods: [
        {
          type: 'CARD',
          parameters: {
            allowedAuthMethods: ['PAN_ONLY', 'CRYPTOGRAM_3DS'],
            allowedCardNetworks: ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER'],
          },
          tokenizationSpecification: {
            type: 'PAYMENT_GATEWAY',
            parameters: { gateway: 'svc', gatewayMerchantId: both },
          },
        },
      ],
      transactionInfo: { totalPriceStatus: 'FINAL', totalPrice: '12.50', currencyCode: 'USD', countryCode: 'US' },
    });
    const { payload } = await jwtVerify(
      request.merchantInfo.authJwt,
      createPublicKey(sandboxWalletKeys().google.authKey),
    );
    expect(payload).toMatchObject({ merchantOrigin: HOST, gatewayMerchantId: both });
    const key = pem();
    const own = await merchantWith(['google'], {
      google: { payment_processing_private_key: key, google_merchant_id: 'BCR2DN4T' },
    });
    const page = await openPage(t, (await createLink(t, own)).url);
    const direct = (await call(page.path, page.token, 'google-pay/session')).json().payment_data_request;
    const jwk = createPublicKey(key).export({ format: 'jwk' });
    const point = Buffer.concat([
      Buffer.from([4]),
      Buffer.from(jwk.x!, 'base64url'),
      Buffer.from(jwk.y!, 'base64url'),
    ]).toString('base64');
    expect(direct.allowedPaymentMethods[0].tokenizationSpecification).toEqual({
      type: 'DIRECT',
      parameters: { protocolVersion: 'ECv2', publicKey: point },
    });
    expect(direct.merchantInfo.merchantId).toBe('BCR2DN4T');
  });
});

describe('errors', () => {
  it('refuses a wallet the merchant has not registered, or the link does not offer', async () => {
    const none = await merchantWith([]);
    const { path, token } = await openPage(t, (await createLink(t, none)).url);
    for (const [what, payload] of [
      ['wallet-tokens', { method: 'googlepay', card: 'visa-approved' }],
      ['apple-pay/session', { validation_url: 'https://apple-pay-gateway.apple.com/x' }],
      ['google-pay/session', {}],
      ['payments', { method: 'applepay', token: { paymentData: {} } }],
    ] as const) {
      const res = await call(path, token, what, payload);
      expect(res.statusCode, what).toBe(400);
      expect(res.json().details[0], what).toMatchObject({
        type: 'wallet_not_registered',
        message: expect.stringMatching(
          /^No (Apple|Google) Pay wallet is registered for this merchant account: register one with POST \/digital-wallets$/,
        ),
      });
    }
    const yen = await openPage(t, (await createLink(t, both, { currency: 'JPY' })).url);
    const refused = await call(yen.path, yen.token, 'wallet-tokens', { method: 'applepay', card: 'visa-approved' });
    expect(refused.json()).toMatchObject({
      code: 'bad_request',
      details: [{ type: 'payment_method_not_offered', pointer: '/method' }],
      message: expect.stringContaining(
        'Apple Pay is not offered for this payment link: no active card service taking network tokens accepts JPY in US',
      ),
    });
  });

  it('refuses malformed wallet payments and a PAN_ONLY card for Apple Pay', async () => {
    const { path, token } = await openPage(t, (await createLink(t, both)).url);
    expect((await call(path, token, 'payments', { method: 'googlepay' })).json().message).toBe(
      "method googlepay needs the wallet's payment token in token",
    );
    expect((await call(path, token, 'payments', { method: 'paybybank', token: 'x' })).json().message).toBe(
      'token and card_suffix go with method applepay or googlepay only',
    );
    expect(
      (await call(path, token, 'wallet-tokens', { method: 'applepay', card: 'visa-pan-only' })).json().details[0],
    ).toMatchObject({ pointer: '/card', message: expect.stringContaining('PAN_ONLY') });
    expect(
      (await call(path, token, 'wallet-tokens', { method: 'googlepay', card: '4111111111111111' })).statusCode,
    ).toBe(422);
    const tampered = await call(path, token, 'payments', {
      method: 'googlepay',
      token: '{"protocolVersion":"ECv2","signature":"AA==","intermediateSigningKey":{},"signedMessage":"{}"}',
    });
    expect(tampered.statusCode).toBe(400);
    expect(tampered.json().details[0].pointer).toBe('/payment_method/token');
    expect(await linkStatus(both, path.split('/')[3]!)).toBe('active');
  });

  it("refuses the wallet calls without the page token, with another link's, or from another origin", async () => {
    const link = await createLink(t, both);
    const { path, token: good } = await openPage(t, link.url);
    const foreign = (await openPage(t, (await createLink(t, both)).url)).token;
    const payloads = {
      'wallet-tokens': { method: 'googlepay', card: 'visa-approved' },
      'apple-pay/session': { validation_url: 'https://apple-pay-gateway.apple.com/x' },
      'google-pay/session': {},
    };
    for (const [what, payload] of Object.entries(payloads)) {
      for (const [token, headers] of [
        ['', {}],
        ['forged.token', {}],
        [foreign, {}],
        [good, { origin: 'https://evil.example' }],
      ] as const) {
        const res = await call(path, token, what, payload, headers);
        expect(res.statusCode, `${what} ${token.slice(0, 6)}`).toBe(403);
      }
    }
    expect((await call(path, good, 'google-pay/session', {}, { origin: `https://${HOST}` })).statusCode).toBe(200);
    expect(await linkStatus(both, link.id)).toBe('active');
  });

  it('refuses the wallet calls of an expired or a completed link', async () => {
    const expired = await createLink(t, both);
    const page = await openPage(t, expired.url);
    await t.request({ method: 'POST', url: `/payment-links/${expired.id}/expire`, merchantAccountId: both });
    const paid = await createLink(t, both);
    const paidPage = await openPage(t, paid.url);
    expect((await payWithSandboxWallet(t, paid.url, 'applepay')).res.json().outcome).toBe('paid');
    for (const [{ path, token }, message] of [
      [page, 'has expired'],
      [paidPage, 'paid already'],
    ] as const) {
      for (const what of ['wallet-tokens', 'google-pay/session']) {
        const res = await call(
          path,
          token,
          what,
          what === 'wallet-tokens' ? { method: 'googlepay', card: 'visa-approved' } : {},
        );
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          details: [{ type: 'payment_link_not_payable' }],
          message: expect.stringContaining(message),
        });
      }
    }
  });
});

/** The card inside a sandbox token, as the server decrypts it: the test learns the cryptogram it must never find. */
function decrypted(token: Record<string, unknown>, method: 'applepay' | 'googlepay') {
  const keys = sandboxWalletKeys();
  if (method === 'applepay')
    return decryptApplePayToken(
      token,
      { privateKey: keys.apple.processingKey, merchantIdentifier: keys.apple.merchantIdentifier },
      { roots: [keys.apple.root], now: new Date(), maxAgeSeconds: 300 },
    );
  return decryptGooglePayToken(
    token,
    { privateKey: keys.google.processingKey, recipientId: keys.google.recipientId },
    [keys.google.root],
    new Date(),
  );
}

describe('security', () => {
  it('nothing of the card, the device token, the cryptogram or the wallet token reaches a response, a log line or a table', async () => {
    const m = await merchantWith(['apple', 'google']);
    const secrets: string[] = ['4111111111111111', '4000000000009995', '4242424242424242'];
    for (const [method, card] of [
      ['applepay', 'visa-approved'],
      ['googlepay', 'visa-insufficient-funds'],
      ['googlepay', 'visa-pan-only'],
    ] as const) {
      const { res, walletToken } = await payWithSandboxWallet(t, (await createLink(t, m)).url, method, card);
      bodies.push(res.body);
      const data = walletToken.paymentData as { data: string; signature: string } | undefined;
      secrets.push(
        ...(data
          ? [data.data.slice(0, 40), data.signature.slice(0, 40)]
          : [
              String(JSON.parse(walletToken.signedMessage as string).encryptedMessage).slice(0, 40),
              String(walletToken.signature).slice(0, 40),
            ]),
      );
      const cryptogram = decrypted(walletToken, method).cryptogram;
      if (cryptogram) secrets.push(cryptogram);
    }
    expect(secrets).toHaveLength(3 + 3 * 2 + 2);
    bodies.forEach((body, i) => secrets.forEach((s) => expect(body.includes(s), `response ${i}`).toBe(false)));
    const logs = t.logs.join('\n');
    for (const s of secrets) expect(logs.includes(s), `logs contain ${s.slice(0, 6)}`).toBe(false);
    const tables = await sql<{
      table_name: string;
    }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(
      t.deps.db,
    );
    for (const { table_name } of tables.rows) {
      const text = (
        await sql<{ text: string }>`SELECT row_to_json(r)::text AS text FROM ${sql.table(table_name)} r`.execute(
          t.deps.db,
        )
      ).rows
        .map((r) => r.text)
        .join('\n');
      for (const s of secrets) expect(text.includes(s), `${table_name} contains ${s.slice(0, 6)}`).toBe(false);
    }
  });

  it('rate limits the wallet calls per link', async () => {
    const limited = await buildTestApp({ EMBED_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const m = (await merchantWithMockCard(limited)).merchantAccountId;
      await limited.request({
        method: 'POST',
        url: '/digital-wallets',
        merchantAccountId: m,
        payload: { provider: 'google', merchant_name: 'W', accept_terms_and_conditions: true },
      });
      const { path, token } = await openPage(limited, (await createLink(limited, m)).url);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push(
          (
            await limited.app.inject({
              method: 'POST',
              url: `${path}/wallet-tokens`,
              headers: { 'x-payment-link-token': token },
              payload: { method: 'googlepay', card: 'visa-approved' },
            })
          ).statusCode,
        );
      expect(statuses).toEqual([201, 201, 429]);
    } finally {
      await limited.close();
    }
  });
});
