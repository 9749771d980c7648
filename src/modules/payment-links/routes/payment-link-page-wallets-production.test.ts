import { createPublicKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createLink, openPage } from '../../../../test/helpers/payment-links.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { seedSandboxPaymentService } from '../../../../test/helpers/production.ts';
import { issueCertificate } from '../../../wallets/x509.ts';

/**
 * The hosted page's wallets with ENVIRONMENT=production: no simulated sheet and no test tokens;
 * a wallet's button only once the wallet is configured for the web (else the page leaves it out
 * and logs why); Google's pay.js allowed by the CSP only on pages offering Google Pay. Apple's and
 * Google's own sheets cannot run here (no Safari, no network): their server calls are tested.
 */

const HOST = 'pay.shop.example';
const pem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const googleRoot = createPublicKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey)
  .export({ type: 'spki', format: 'der' })
  .toString('base64');

/** Apple's merchant identity certificate and key (self-issued: only its pairing and expiry are checked here). */
function identity() {
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const der = issueCertificate({
    subject: 'Merchant ID: merchant.example.live',
    issuer: 'Test CA',
    serial: 7,
    publicKey: createPublicKey(key),
    issuerKey: key,
    ca: false,
    notBefore: new Date('2020-01-01'),
    notAfter: new Date('2040-01-01'),
  });
  return {
    merchant_identity_certificate: new X509Certificate(der).toString(),
    merchant_identity_private_key: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}
const liveApple = (domain: string) => ({
  domain_names: [domain],
  payment_processing_private_key: pem(),
  apple_merchant_identifier: 'merchant.example.live',
  merchant_country_code: 'GB',
  ...identity(),
});

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({
    ENVIRONMENT: 'production',
    VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
    PUBLIC_URL: `https://${HOST}`,
    GOOGLE_PAY_AUTH_PRIVATE_KEY: pem(),
    GOOGLE_PAY_ROOT_SIGNING_KEYS: JSON.stringify({ keys: [{ keyValue: googleRoot, protocolVersion: 'ECv2' }] }),
  });
});
afterAll(async () => t.close());

async function merchantWith(wallets: Record<string, Record<string, unknown>>) {
  // Production has no sandbox connector, and no real connector takes the network tokens a wallet token
  // decrypted here becomes: an Adyen payment service, which decrypts the wallets' tokens passed on to it
  // (token_decryption: payment-service), as configured (the page does not call it).
  const merchantAccountId = await createMerchantAccount(t.deps);
  await seedSandboxPaymentService(t, merchantAccountId, 'adyen-card', {
    currencies: ['USD', 'EUR', 'GBP'],
    countries: ['US', 'GB', 'DE', 'FR', 'NL'],
    fields: { merchant_account: 'LiveShop', api_key: 'live-key' },
  });
  for (const [provider, extra] of Object.entries(wallets)) {
    const res = await t.request({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId,
      payload: {
        provider,
        merchant_name: 'Live Shop',
        accept_terms_and_conditions: true,
        token_decryption: 'payment-service',
        ...extra,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return merchantAccountId;
}

const post = (path: string, token: string, what: string, payload: Record<string, unknown> = {}) =>
  t.app.inject({ method: 'POST', url: `${path}/${what}`, headers: { 'x-payment-link-token': token }, payload });

describe('happy', () => {
  it('offers a configured Google Pay wallet: a hidden button for pay.js, which the CSP allows on this page only', async () => {
    const m = await merchantWith({
      google: { payment_processing_private_key: pem(), google_merchant_id: 'BCR2DN4T', merchant_country_code: 'GB' },
    });
    const { res, path, token } = await openPage(
      t,
      (await createLink(t, m, { currency: 'GBP', country: 'GB', amount: 995 })).url,
    );
    expect(res.body).toContain('data-wallet-mode="production"');
    expect(res.body).toMatch(
      /<button type="button" class="wallet wallet-googlepay" data-wallet="googlepay" hidden>Pay with Google Pay<\/button>/,
    );
    expect(res.body).not.toContain('<dialog');
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self' https://pay.google.com;");
    expect(csp).toContain('frame-src https://pay.google.com;');
    expect(csp).toContain(
      "connect-src 'self' https://pay.google.com https://google.com/pay https://www.google.com/pay;",
    );
    const session = await post(path, token, 'google-pay/session');
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json()).toMatchObject({
      environment: 'PRODUCTION',
      payment_data_request: {
        merchantInfo: { merchantId: 'BCR2DN4T', merchantOrigin: HOST },
        allowedPaymentMethods: [
          { tokenizationSpecification: { type: 'DIRECT', parameters: { protocolVersion: 'ECv2' } } },
        ],
        transactionInfo: { totalPrice: '9.95', currencyCode: 'GBP', countryCode: 'GB' },
      },
    });
    const plain = await openPage(t, (await createLink(t, await merchantWith({}))).url);
    expect(plain.res.headers['content-security-policy']).not.toContain('google');
  });

  it("offers a configured Apple Pay wallet: a hidden button with Apple Pay JS's payment request, no third-party script", async () => {
    const m = await merchantWith({ apple: liveApple(HOST) });
    const { res } = await openPage(
      t,
      (await createLink(t, m, { currency: 'GBP', country: 'GB', amount: 995, merchant_name: 'Ada Tea' })).url,
    );
    const button =
      /<button type="button" class="wallet wallet-applepay" data-wallet="applepay" data-request="([^"]+)" hidden>Pay with Apple Pay<\/button>/.exec(
        res.body,
      );
    expect(JSON.parse(button![1]!.replace(/&#34;/g, '"'))).toMatchObject({
      countryCode: 'GB',
      currencyCode: 'GBP',
      total: { label: 'Ada Tea', amount: '9.95', type: 'final' },
    });
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
  });
});

describe('errors', () => {
  it('refuses to make sandbox tokens (404)', async () => {
    const m = await merchantWith({ google: { payment_processing_private_key: pem(), google_merchant_id: 'BCR2DN4T' } });
    const { path, token } = await openPage(t, (await createLink(t, m)).url);
    const res = await post(path, token, 'wallet-tokens', { method: 'googlepay', card: 'visa-approved' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({
      code: 'not_found',
      message: 'Sandbox wallet tokens exist in the sandbox environment only',
    });
  });

  it('leaves out a wallet that is not configured for the web, logs why, and refuses its calls saying what is missing', async () => {
    const m = await merchantWith({ apple: { domain_names: [HOST] }, google: {} });
    const { res, path, token } = await openPage(t, (await createLink(t, m)).url);
    expect(res.body).not.toContain('data-wallet=');
    expect(res.headers['content-security-policy']).not.toContain('google');
    expect(
      t.logs.some(
        (line) =>
          line.includes('payment page leaves out a wallet it cannot run') && line.includes('apple_merchant_identifier'),
      ),
    ).toBe(true);
    const apple = await post(path, token, 'apple-pay/session', {
      validation_url: 'https://apple-pay-gateway.apple.com/paymentservices/startSession',
    });
    expect(apple.json()).toMatchObject({
      status: 400,
      details: [{ type: 'wallet_not_configured' }],
      message: expect.stringContaining(
        'Apple Pay cannot be used on the payment page: the Apple Pay wallet has no payment_processing_private_key',
      ),
    });
    const google = await post(path, token, 'google-pay/session');
    expect(google.json()).toMatchObject({
      status: 400,
      details: [{ type: 'wallet_not_configured' }],
      message: expect.stringContaining('google_merchant_id (DIRECT tokenization)'),
    });
    const pay = await post(path, token, 'payments', { method: 'googlepay', token: '{}' });
    expect(pay.json().details[0].type).toBe('wallet_not_configured');
  });

  it("leaves out Apple Pay when the page's host is not a domain of the wallet", async () => {
    const m = await merchantWith({ apple: liveApple('shop.example.com') });
    const { res, path, token } = await openPage(t, (await createLink(t, m)).url);
    expect(res.body).not.toContain('data-wallet=');
    const session = await post(path, token, 'apple-pay/session', {
      validation_url: 'https://apple-pay-gateway.apple.com/paymentservices/startSession',
    });
    expect(session.json().message).toBe(
      `Apple Pay cannot be used on the payment page: ${HOST} (the host of PUBLIC_URL) is not a domain of the Apple Pay wallet`,
    );
  });
});
