import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuthorizeRequest } from '../../src/connectors/connector.ts';
import { makeApplePayToken } from '../../src/wallets/apple-pay.ts';
import { sandboxWalletKeys } from '../../src/wallets/sandbox-keys.ts';
import { sandboxApplePayToken, sandboxGooglePayToken } from '../../src/wallets/sandbox-tokens.ts';
import { ADYEN_FAKE_KEY, ADYEN_FAKE_MERCHANT, startAdyenFake, type AdyenFake } from '../fakes/adyen-fake.ts';
import { BRAINTREE_FAKE_KEYS, startBraintreeFake, type BraintreeFake } from '../fakes/braintree-fake.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Provider-side decryption (docs/digital-wallets.md, "Passing tokens on"): a wallet with
 * `token_decryption: payment-service` passes its tokens on encrypted. mock-card decrypts them with
 * the sandbox keys like a provider and pays the card (authorized, captured, refunded, declined by
 * the test cards, refused for other keys or another amount); the Adyen fake receives applePayToken
 * and googlePayToken and checks them; routing takes only services that can decrypt, and says so when
 * none can. Neither the card nor the encrypted token is kept or logged anywhere.
 */

const DPAN = '4895370012003478';
const CRYPTOGRAM = 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=';
const GOOGLE_PAN = '5204245250001488';

let t: TestApp;
let adyen: AdyenFake;
let braintree: BraintreeFake;
const bodies: string[] = [];
/** Every piece of every token sent: none may be kept, answered or logged. */
const secrets = new Set<string>([DPAN, CRYPTOGRAM, GOOGLE_PAN]);

beforeAll(async () => {
  [adyen, braintree] = await Promise.all([startAdyenFake(), startBraintreeFake()]);
  t = await buildTestApp({
    CONNECTOR_BASE_URLS: `adyen-card=${adyen.baseUrl},braintree-card=${braintree.baseUrl}`,
    SETTLEMENT_DELAY_SECONDS: '0',
  });
});
afterAll(async () => {
  await t.close();
  await Promise.all([adyen.close(), braintree.close()]);
});

function apple(card: Parameters<typeof sandboxApplePayToken>[0]) {
  const token = sandboxApplePayToken({ cryptogram: CRYPTOGRAM, ...card }) as {
    paymentData: { data: string; signature: string; header: { ephemeralPublicKey: string } };
  };
  const pd = token.paymentData;
  for (const piece of [
    pd.data,
    pd.signature,
    pd.header.ephemeralPublicKey,
    Buffer.from(JSON.stringify(pd)).toString('base64').slice(0, 60),
  ])
    secrets.add(piece);
  return token;
}

function google(card: Parameters<typeof sandboxGooglePayToken>[0]) {
  const token = sandboxGooglePayToken({ cryptogram: CRYPTOGRAM, ...card }) as {
    signature: string;
    signedMessage: string;
  };
  const message = JSON.parse(token.signedMessage) as { encryptedMessage: string; tag: string };
  for (const piece of [token.signature, message.encryptedMessage, message.tag]) secrets.add(piece);
  return token;
}

async function send(options: Parameters<TestApp['request']>[0]) {
  const res = await t.request(options);
  bodies.push(res.body);
  return res;
}

async function passingWallets(m: string) {
  for (const provider of ['apple', 'google']) {
    const res = await send({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId: m,
      payload: {
        provider,
        merchant_name: 'Wallet Shop',
        accept_terms_and_conditions: true,
        token_decryption: 'payment-service',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
}

async function mockMerchant() {
  const { merchantAccountId, paymentServiceId } = await merchantWithMockCard(t);
  await passingWallets(merchantAccountId);
  return { m: merchantAccountId, paymentServiceId };
}

async function braintreeService(m: string) {
  const fields = Object.entries({
    environment: 'sandbox',
    merchant_id: 'mid',
    ...BRAINTREE_FAKE_KEYS,
    merchant_account_ids: 'USD=default_usd',
  }).map(([key, value]) => ({ key, value }));
  const res = await send({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Braintree',
      payment_service_definition_id: 'braintree-card',
      fields,
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const pay = (m: string, paymentMethod: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  send({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: { amount: 1200, currency: 'USD', country: 'US', payment_method: paymentMethod, ...extra },
  });
const get = async (m: string, url: string) => (await send({ method: 'GET', url, merchantAccountId: m })).json();

describe('happy', () => {
  it("an Apple token passed on to mock-card: decrypted there, authorized, captured, refunded; the transaction keeps the request's label and scheme only", async () => {
    const { m } = await mockMerchant();
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const token = apple({ number: DPAN, expirationDate: '12/30', amount: 1200 });
    const res = await pay(m, { method: 'applepay', token, card_suffix: '4242', card_scheme: 'visa' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'applepay',
      instrument_type: 'applepay',
      payment_method: {
        method: 'applepay',
        mode: 'applepay',
        label: '4242',
        scheme: 'visa',
        expiration_date: null,
        details: null,
      },
    });
    const instrument = (authorize.mock.calls.at(-1)![0] as AuthorizeRequest).instrument;
    expect(instrument).toMatchObject({ kind: 'wallet-token', provider: 'apple', scheme: 'visa' });
    expect(JSON.parse((instrument as { token: string }).token)).toEqual(token.paymentData);
    authorize.mockRestore();
    const id = res.json().id;
    expect(
      (await send({ method: 'POST', url: `/transactions/${id}/capture`, merchantAccountId: m, payload: {} })).json(),
    ).toMatchObject({ status: 'succeeded', transaction: { status: 'capture_succeeded' } });
    expect(
      (
        await send({
          method: 'POST',
          url: `/transactions/${id}/refunds`,
          merchantAccountId: m,
          payload: { amount: 1200 },
        })
      ).json(),
    ).toMatchObject({ status: 'succeeded', amount: 1200 });
    expect(await get(m, `/transactions/${id}`)).toMatchObject({ refunded_amount: 1200, method: 'applepay' });
  });

  it("a Google token passed on to mock-card: captured at once; the card's test outcome applies as for a card", async () => {
    const { m } = await mockMerchant();
    const captured = await pay(
      m,
      { method: 'googlepay', token: JSON.stringify(google({ number: GOOGLE_PAN, expirationDate: '11/31' })) },
      { intent: 'capture' },
    );
    expect(captured.json()).toMatchObject({
      status: 'capture_succeeded',
      method: 'googlepay',
      instrument_type: 'googlepay',
    });
    const declined = await pay(m, {
      method: 'googlepay',
      token: google({ number: '4000000000000002', expirationDate: '11/31', authMethod: 'PAN_ONLY' }),
    });
    expect(declined.json()).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
  });

  it('routing skips a service whose connector cannot decrypt the token, and says why', async () => {
    const m = await createMerchantAccount(t.deps);
    const first = await braintreeService(m);
    const { paymentServiceId: mock } = await (async () => {
      const res = await send({
        method: 'POST',
        url: '/payment-services',
        merchantAccountId: m,
        payload: {
          display_name: 'Mock',
          payment_service_definition_id: 'mock-card',
          fields: [{ key: 'merchant_id', value: 'x' }],
          accepted_currencies: ['USD'],
          accepted_countries: ['US'],
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      return { paymentServiceId: res.json().id as string };
    })();
    await passingWallets(m);
    const res = await pay(m, {
      method: 'applepay',
      token: apple({ number: DPAN, expirationDate: '12/30', amount: 1200 }),
    });
    expect(res.json()).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: mock } });
    const [decision] = (await get(m, `/transactions/${res.json().id}/actions`)).items;
    expect(decision.outcome).toMatchObject({
      selected: mock,
      skipped: [{ payment_service_id: first, reason: 'encrypted_wallet_token_not_accepted' }],
    });
  });

  it('Adyen receives applePayToken (base64 of the paymentData JSON) and googlePayToken (the token text), as its fake checks', async () => {
    const m = await createMerchantAccount(t.deps);
    const fields = Object.entries({ api_key: ADYEN_FAKE_KEY, merchant_account: ADYEN_FAKE_MERCHANT }).map(
      ([key, value]) => ({ key, value }),
    );
    const service = await send({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Adyen',
        payment_service_definition_id: 'adyen-card',
        fields,
        accepted_currencies: ['EUR'],
        accepted_countries: ['NL'],
      },
    });
    expect(service.statusCode, service.body).toBe(201);
    await passingWallets(m);
    // Adyen takes no network tokens: only passing tokens on makes its wallets payable.
    const options = (
      await send({
        method: 'POST',
        url: '/payment-options',
        merchantAccountId: m,
        payload: { currency: 'EUR', country: 'NL' },
      })
    ).json();
    expect(options.items.map((o: { method: string }) => o.method)).toEqual(
      expect.arrayContaining(['applepay', 'googlepay']),
    );
    const token = apple({ number: DPAN, expirationDate: '12/30', amount: 1000, currency: 'EUR' });
    const paid = await pay(m, { method: 'applepay', token }, { amount: 1000, currency: 'EUR', country: 'NL' });
    expect(paid.json()).toMatchObject({
      status: 'authorization_succeeded',
      payment_service_transaction_id: expect.stringMatching(/^PSP/),
    });
    const appleBody = adyen.bodies('/payments').at(-1)!;
    expect(appleBody).toMatchObject({
      amount: { value: 1000, currency: 'EUR' },
      paymentMethod: { type: 'applepay' },
      additionalData: { manualCapture: 'true' },
    });
    expect(JSON.parse(Buffer.from(appleBody.paymentMethod.applePayToken, 'base64').toString('utf8'))).toEqual(
      token.paymentData,
    );
    const text = JSON.stringify(google({ number: GOOGLE_PAN, expirationDate: '11/31' }));
    const captured = await pay(
      m,
      { method: 'googlepay', token: text },
      { amount: 700, currency: 'EUR', country: 'NL', intent: 'capture' },
    );
    expect(captured.json()).toMatchObject({ status: 'capture_succeeded' });
    expect(adyen.bodies('/payments').at(-1)).toMatchObject({
      paymentMethod: { type: 'googlepay', googlePayToken: text },
      captureDelayHours: 0,
    });
    const refused = await pay(m, { method: 'googlepay', token: text }, { amount: 700, currency: 'EUR', country: 'NL' });
    expect(refused.json().details[0].type).toBe('wallet_token_replayed');
  });
});

describe('errors', () => {
  it('mock-card refuses like a provider: a token for other keys, a tampered one, an Apple amount that is not the charge', async () => {
    const { m } = await mockMerchant();
    const tampered = apple({ number: DPAN, expirationDate: '12/30', amount: 1200 });
    tampered.paymentData.data = Buffer.from(
      Buffer.from(tampered.paymentData.data, 'base64').map((b, i) => (i === 3 ? b ^ 1 : b)),
    ).toString('base64');
    expect((await pay(m, { method: 'applepay', token: tampered })).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'invalid_card_number',
      raw_response_code: '14',
      raw_response_description: expect.stringContaining('tampered'),
    });
    const keys = sandboxWalletKeys().apple;
    const foreign = makeApplePayToken({
      payment: { applicationPrimaryAccountNumber: DPAN },
      recipientPublicKey: createPublicKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey),
      merchantIdentifier: keys.merchantIdentifier,
      signer: keys.signer,
      signingTime: new Date(),
      network: 'Visa',
    });
    expect((await pay(m, { method: 'applepay', token: foreign })).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'invalid_card_number',
      raw_response_description: expect.stringContaining('encrypted for another payment processing key'),
    });
    const altered = google({ number: GOOGLE_PAN, expirationDate: '11/31' }) as Record<string, unknown>;
    altered.signedMessage = (altered.signedMessage as string).replace('"tag":"', '"tag":"A');
    expect((await pay(m, { method: 'googlepay', token: altered })).json()).toMatchObject({
      status: 'authorization_declined',
      error_code: 'invalid_card_number',
      raw_response_description: expect.stringContaining('Google Pay token was refused'),
    });
    // This server cannot see the amount of a token it does not decrypt: the provider checks it.
    expect(
      (
        await pay(m, { method: 'applepay', token: apple({ number: DPAN, expirationDate: '12/30', amount: 1000 }) })
      ).json(),
    ).toMatchObject({
      status: 'authorization_declined',
      error_code: 'invalid_amount',
      raw_response_code: '13',
      raw_response_description: expect.stringContaining('approved 10.00 USD'),
    });
  });

  it('no service can decrypt the token: 400 on the token saying why and what to do; nothing is recorded', async () => {
    const m = await createMerchantAccount(t.deps);
    await braintreeService(m);
    await passingWallets(m);
    const res = await pay(m, {
      method: 'applepay',
      token: apple({ number: DPAN, expirationDate: '12/30', amount: 1200 }),
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      details: [{ location: 'body', pointer: '/payment_method/token', type: 'wallet_token_not_accepted' }],
    });
    expect(res.json().message).toMatch(
      /cannot decrypt Apple Pay tokens\. Add a payment service whose connector can \(adyen-card, mock-card\), or set the wallet's token_decryption to server/,
    );
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_account_id', '=', m).execute(),
    ).toEqual([]);
    expect(
      await t.deps.db
        .selectFrom('wallet_token_uses')
        .select('token_hash')
        .where('merchant_account_id', '=', m)
        .execute(),
    ).toEqual([]);
  });

  it('a token of the wrong shape is refused before anything is sent; a token passed on pays once', async () => {
    const { m } = await mockMerchant();
    const noHeader = await pay(m, {
      method: 'applepay',
      token: { paymentData: { version: 'EC_v1', data: 'AAAA', signature: 'AAAA' } },
    });
    expect(noHeader.json()).toMatchObject({
      status: 400,
      details: [{ pointer: '/payment_method/token', type: 'wallet_token_malformed' }],
    });
    expect((await pay(m, { method: 'googlepay', token: { protocolVersion: 'ECv1' } })).json().details[0].type).toBe(
      'wallet_token_unsupported',
    );
    const token = apple({ number: DPAN, expirationDate: '12/30', amount: 1200 });
    const first = await pay(m, { method: 'applepay', token });
    expect(first.statusCode).toBe(201);
    const again = await pay(m, { method: 'applepay', token });
    expect(again.json()).toMatchObject({
      status: 400,
      message: expect.stringContaining(`already used for transaction ${first.json().id}`),
      details: [{ type: 'wallet_token_replayed' }],
    });
  });
});

describe('security', () => {
  it('neither the card nor any piece of the encrypted token is in a response, a log line or a table', async () => {
    expect(bodies.length).toBeGreaterThan(20);
    expect(secrets.size).toBeGreaterThan(30);
    const clean = (where: string, text: string) => {
      for (const secret of secrets)
        expect(text.includes(secret), `${where} contains ${secret.slice(0, 6)}…`).toBe(false);
    };
    bodies.forEach((body, i) => clean(`response ${i}`, body));
    t.logs.forEach((line, i) => clean(`log line ${i}`, line));
    const tables = await sql<{
      table_name: string;
    }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(
      t.deps.db,
    );
    expect(tables.rows.map((r) => r.table_name)).toContain('wallet_token_uses');
    for (const { table_name } of tables.rows) {
      const rows = await sql<{
        text: string;
      }>`SELECT row_to_json(r)::text AS text FROM ${sql.table(table_name)} r`.execute(t.deps.db);
      clean(table_name, rows.rows.map((r) => r.text).join('\n'));
    }
  });
});
