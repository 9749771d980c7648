import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuthorizeRequest } from '../../src/connectors/connector.ts';
import { APPLE_INTERMEDIATE_MARKER, APPLE_LEAF_MARKER, makeApplePayToken } from '../../src/wallets/apple-pay.ts';
import { sandboxApplePayToken, sandboxGooglePayToken } from '../../src/wallets/sandbox-tokens.ts';
import { issueCertificate } from '../../src/wallets/x509.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Paying with wallet tokens: the server verifies and decrypts Apple Pay and Google Pay tokens
 * (sandbox keys, or the merchant's own keys under a root of this test's own), the device token
 * goes to mock-card as a network token with its cryptogram and ECI, the payment is captured and
 * refunded, and the device token and cryptogram appear in no response, log line or table.
 */

const key = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const [rootKey, intermediateKey, leafKey] = [key(), key(), key()];
const validity = { notBefore: new Date('2020-01-01'), notAfter: new Date('2040-01-01') };
const rootDer = issueCertificate({
  ...validity,
  subject: 'Wallet Test Root',
  issuer: 'Wallet Test Root',
  serial: 1,
  publicKey: createPublicKey(rootKey),
  issuerKey: rootKey,
  ca: true,
});
const signer = {
  intermediate: issueCertificate({
    ...validity,
    subject: 'Wallet Test Intermediate',
    issuer: 'Wallet Test Root',
    serial: 2,
    publicKey: createPublicKey(intermediateKey),
    issuerKey: rootKey,
    ca: true,
    markers: [APPLE_INTERMEDIATE_MARKER],
  }),
  leaf: issueCertificate({
    ...validity,
    subject: 'Wallet Test Leaf',
    issuer: 'Wallet Test Intermediate',
    serial: 3,
    publicKey: createPublicKey(leafKey),
    issuerKey: intermediateKey,
    ca: false,
    markers: [APPLE_LEAF_MARKER],
  }),
  key: leafKey,
};

const DPAN = '4895370012003478';
const CRYPTOGRAM = 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=';
const GOOGLE_PAN = '5204245250001488';

let t: TestApp;
const bodies: string[] = [];
beforeAll(async () => {
  t = await buildTestApp({
    APPLE_PAY_ROOT_CERTIFICATES: new X509Certificate(rootDer).toString(),
    SETTLEMENT_DELAY_SECONDS: '0',
  });
});
afterAll(async () => t.close());

async function send(options: Parameters<TestApp['request']>[0]) {
  const res = await t.request(options);
  bodies.push(res.body);
  return res;
}

async function merchantWithWallet(provider: 'apple' | 'google', extra: Record<string, unknown> = {}) {
  const { merchantAccountId } = await merchantWithMockCard(t);
  // Webhook snapshots are written only for a subscription: the leak scan reads them too.
  await subscribeToEvents(t, merchantAccountId);
  const res = await send({
    method: 'POST',
    url: '/digital-wallets',
    merchantAccountId,
    payload: { provider, merchant_name: 'Wallet Shop', accept_terms_and_conditions: true, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return merchantAccountId;
}

const pay = (merchantAccountId: string, paymentMethod: Record<string, unknown>, amount = 1200) =>
  send({
    method: 'POST',
    url: '/transactions',
    merchantAccountId,
    payload: { amount, currency: 'USD', country: 'US', payment_method: paymentMethod },
  });

function expect400(res: { statusCode: number; body: string; json(): any }, message: string) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({
    type: 'error',
    code: 'bad_request',
    status: 400,
    message: expect.stringContaining(message),
    details: [{ location: 'body', pointer: '/payment_method/token' }],
  });
}

describe('happy', () => {
  it('an Apple Pay sandbox token: authorized as a network token with cryptogram and ECI, captured, refunded', async () => {
    const m = await merchantWithWallet('apple');
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const res = await pay(m, {
      method: 'applepay',
      token: sandboxApplePayToken({
        number: DPAN,
        expirationDate: '12/30',
        amount: 1200,
        cryptogram: CRYPTOGRAM,
        eci: '07',
      }),
      card_suffix: '4242',
      card_scheme: 'visa',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'applepay',
      instrument_type: 'applepay',
      amount: 1200,
      payment_method: {
        method: 'applepay',
        mode: 'applepay',
        label: '4242',
        scheme: 'visa',
        expiration_date: '12/30',
        details: null,
      },
    });
    const request = authorize.mock.calls.at(-1)![0] as AuthorizeRequest;
    expect(request.instrument).toEqual({
      kind: 'network-token',
      token: DPAN,
      expirationDate: '12/30',
      cryptogram: CRYPTOGRAM,
      eci: '07',
      scheme: 'visa',
    });
    authorize.mockRestore();
    const id = res.json().id;
    const captured = await send({
      method: 'POST',
      url: `/transactions/${id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
    expect(captured.statusCode, captured.body).toBe(200);
    expect(captured.json()).toMatchObject({
      status: 'succeeded',
      transaction: { status: 'capture_succeeded', captured_amount: 1200 },
    });
    const refund = await send({
      method: 'POST',
      url: `/transactions/${id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 1200 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json()).toMatchObject({ status: 'succeeded', amount: 1200 });
    expect((await send({ method: 'GET', url: `/transactions/${id}`, merchantAccountId: m })).json()).toMatchObject({
      refunded_amount: 1200,
      method: 'applepay',
    });
  });

  it("an Apple Pay token for the merchant's own processing key, signed under a trusted root of its own", async () => {
    const processing = key();
    const m = await merchantWithWallet('apple', {
      payment_processing_private_key: processing.export({ type: 'pkcs8', format: 'pem' }).toString(),
      apple_merchant_identifier: 'merchant.com.wallet-shop',
    });
    const payment = {
      applicationPrimaryAccountNumber: DPAN,
      applicationExpirationDate: '301231',
      currencyCode: '840',
      transactionAmount: 1200,
      deviceManufacturerIdentifier: '1',
      paymentDataType: '3DSecure',
      paymentData: { onlinePaymentCryptogram: CRYPTOGRAM },
    };
    const token = makeApplePayToken({
      payment,
      recipientPublicKey: createPublicKey(processing),
      merchantIdentifier: 'merchant.com.wallet-shop',
      signer,
      signingTime: new Date(),
      network: 'Visa',
    });
    const res = await pay(m, { method: 'applepay', token });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      instrument_type: 'applepay',
      payment_method: { label: '3478' },
    });
    // The merchant's keys take precedence: a token for the sandbox keys is not for this wallet.
    expect400(
      await pay(m, { method: 'applepay', token: sandboxApplePayToken({ number: DPAN, expirationDate: '12/30' }) }),
      'another payment processing key',
    );
  });

  it('Google Pay sandbox tokens: CRYPTOGRAM_3DS as a network token, PAN_ONLY as a card; googlepay_pan_only as a card', async () => {
    const m = await merchantWithWallet('google');
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const cryptogram = await pay(m, {
      method: 'googlepay',
      token: JSON.stringify(
        sandboxGooglePayToken({ number: DPAN, expirationDate: '11/31', cryptogram: CRYPTOGRAM, eci: '05' }),
      ),
    });
    expect(cryptogram.statusCode, cryptogram.body).toBe(201);
    expect(cryptogram.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'googlepay',
      instrument_type: 'googlepay',
    });
    expect((authorize.mock.calls.at(-1)![0] as AuthorizeRequest).instrument).toMatchObject({
      kind: 'network-token',
      token: DPAN,
      cryptogram: CRYPTOGRAM,
      eci: '05',
    });
    const panOnly = await pay(m, {
      method: 'googlepay',
      token: sandboxGooglePayToken({ number: GOOGLE_PAN, expirationDate: '11/31', authMethod: 'PAN_ONLY' }),
    });
    expect(panOnly.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'googlepay',
      instrument_type: 'googlepay',
      payment_method: { label: '1488', details: { bin: '52042452' } },
    });
    expect((authorize.mock.calls.at(-1)![0] as AuthorizeRequest).instrument).toMatchObject({
      kind: 'card',
      number: GOOGLE_PAN,
    });
    const merchantDecrypted = await pay(m, {
      method: 'googlepay_pan_only',
      number: GOOGLE_PAN,
      expiration_date: '11/31',
    });
    expect(merchantDecrypted.statusCode, merchantDecrypted.body).toBe(201);
    expect(merchantDecrypted.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'googlepay',
      instrument_type: 'pan',
    });
    authorize.mockRestore();
  });

  it('a merchant-decrypted device token: network-token with cryptogram, ECI and card_source', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const res = await pay(m, {
      method: 'network-token',
      token: DPAN,
      expiration_date: '12/30',
      cryptogram: CRYPTOGRAM,
      eci: '07',
      card_source: 'apple-pay',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect((authorize.mock.calls.at(-1)![0] as AuthorizeRequest).instrument).toMatchObject({
      kind: 'network-token',
      cryptogram: CRYPTOGRAM,
      eci: '07',
    });
    authorize.mockRestore();
  });
});

describe('errors', () => {
  it('a tampered, an expired, a wrongly signed and a malformed Apple Pay token are clear 400s; nothing is recorded', async () => {
    const m = await merchantWithWallet('apple');
    const tampered = sandboxApplePayToken({ number: DPAN, expirationDate: '12/30' }) as {
      paymentData: { data: string };
    };
    tampered.paymentData.data = Buffer.from(
      Buffer.from(tampered.paymentData.data, 'base64').map((b, i) => (i === 3 ? b ^ 1 : b)),
    ).toString('base64');
    expect400(await pay(m, { method: 'applepay', token: tampered }), 'tampered');
    expect400(
      await pay(m, {
        method: 'applepay',
        token: sandboxApplePayToken({ number: DPAN, expirationDate: '12/30' }, new Date(Date.now() - 600_000)),
      }),
      'tokens older than 300 seconds',
    );
    const foreign = makeApplePayToken({
      payment: {},
      recipientPublicKey: createPublicKey(key()),
      merchantIdentifier: 'x',
      signer: { ...signer, key: key() },
      signingTime: new Date(),
      network: 'Visa',
    });
    expect400(await pay(m, { method: 'applepay', token: foreign }), 'does not verify with the leaf certificate');
    expect400(await pay(m, { method: 'applepay', token: { paymentData: { version: 'RSA_v1' } } }), 'only EC_v1');
    expect400(
      await pay(m, { method: 'applepay', token: sandboxApplePayToken({ number: DPAN, expirationDate: '01/20' }) }),
      'expired',
    );
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_account_id', '=', m).execute(),
    ).toEqual([]);
  });

  it('a Google Pay token whose message was altered is a 400; a wallet must be registered', async () => {
    const m = await merchantWithWallet('google');
    const token = sandboxGooglePayToken({ number: DPAN, expirationDate: '11/31' }) as { signedMessage: string };
    expect400(
      await pay(m, {
        method: 'googlepay',
        token: { ...token, signedMessage: token.signedMessage.replace('"tag":"', '"tag":"A') },
      }),
      'signature does not verify',
    );
    const { merchantAccountId: bare } = await merchantWithMockCard(t);
    expect400(await pay(bare, { method: 'googlepay', token }), 'No google digital wallet is registered');
    expect400(
      await pay(bare, { method: 'applepay', token: sandboxApplePayToken({ number: DPAN, expirationDate: '12/30' }) }),
      'No apple digital wallet is registered',
    );
  });

  it('store is refused with a wallet token', async () => {
    const m = await merchantWithWallet('apple');
    const res = await send({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: {
        amount: 100,
        currency: 'USD',
        store: true,
        payment_method: { method: 'applepay', token: sandboxApplePayToken({ number: DPAN, expirationDate: '12/30' }) },
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].pointer).toBe('/store');
  });
});

describe('security', () => {
  it('the device token and the cryptogram appear in no response, log line or table', async () => {
    expect(bodies.length).toBeGreaterThan(10);
    await expectNoSecrets(t, bodies, [DPAN, CRYPTOGRAM, GOOGLE_PAN]);
  });
});
