import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { CompactSign } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuthorizeRequest } from '../../src/connectors/connector.ts';
import { makePazeCompleteResponse, type CompleteResponseInput } from '../../src/wallets/paze-complete-response.ts';
import { sandboxPazePayload } from '../../src/wallets/paze-sandbox.ts';
import { sandboxPazeToken } from '../../src/wallets/sandbox-tokens.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { pazeDance, registerPaze } from '../helpers/paze.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Paying with Paze: the sandbox's whole mobile dance (session → create → checkout page → review →
 * complete) and then `POST /transactions` with the completeResponse, authorized, captured and
 * refunded through mock-card as a network token; tokens of this test's own "Paze" key (trusted by
 * PAZE_SIGNING_KEYS) for the merchant's own RSA key; every refusal built from first principles; and
 * no network token, cryptogram or card number in any response, log line or table.
 */

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const [paze, stranger, ownKey] = [rsa(), rsa(), rsa()];
const VISA_DPAN = '4895370012003478';
const MC_DPAN = '5204245250001488';
const OWN_DPAN = '4111111111111111';

let t: TestApp;
const bodies: string[] = [];
const cryptograms = new Set<string>();
beforeAll(async () => {
  t = await buildTestApp({
    PAZE_SIGNING_KEYS: JSON.stringify({ keys: [{ ...paze.publicKey.export({ format: 'jwk' }), kid: 'test-paze-1' }] }),
    SETTLEMENT_DELAY_SECONDS: '0',
  });
});
afterAll(async () => t.close());

async function send(options: Parameters<TestApp['request']>[0]) {
  const res = await t.request(options);
  bodies.push(res.body);
  return res;
}

const pay = (merchantAccountId: string, paymentMethod: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  send({
    method: 'POST',
    url: '/transactions',
    merchantAccountId,
    payload: { amount: 1200, currency: 'USD', country: 'US', payment_method: paymentMethod, ...extra },
  });

/** The sandbox dance; every answer joins the scanned responses. */
async function dance(...args: Parameters<typeof pazeDance>) {
  const done = await pazeDance(...args);
  bodies.push(JSON.stringify(done));
  return done;
}

async function merchantWithPaze(extra: Record<string, unknown> = {}) {
  const { merchantAccountId } = await merchantWithMockCard(t);
  await registerPaze(t, merchantAccountId, extra);
  return merchantAccountId;
}

function expect400(
  res: { statusCode: number; body: string; json(): any },
  type: string,
  message: string,
  pointer = '/payment_method/token',
) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({
    code: 'bad_request',
    message: expect.stringContaining(message),
    details: [{ location: 'body', pointer, type }],
  });
}

/** A completeResponse of this test's own "Paze" for the merchant's own key. */
const own = (overrides: Partial<CompleteResponseInput> = {}, data: Record<string, unknown> = {}) => {
  const now = new Date();
  const payload = {
    ...sandboxPazePayload(
      { id: 'own', dpan: OWN_DPAN, network: 'VISA' },
      { clientId: 'C1', profileId: 'PROFILE-1', cryptogram: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', now },
    ),
    ...data,
  };
  return makePazeCompleteResponse({
    data: payload,
    recipientPublicKey: ownKey.publicKey,
    signer: { key: paze.privateKey, kid: 'test-paze-1' },
    sessionId: 'session-1',
    issuedAt: now,
    lifetimeSeconds: 600,
    issuer: 'test-paze',
    ...overrides,
  });
};
const sign = (payload: Record<string, unknown>, key = paze.privateKey) =>
  new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RS256', kid: 'test-paze-1', exp: Math.floor(Date.now() / 1000) + 600 })
    .sign(key);

describe('happy', () => {
  it('the sandbox dance, then method paze: a network token with its cryptogram and ECI, captured and refunded', async () => {
    const m = await merchantWithPaze();
    const { complete } = await dance(t, m, {
      transactionValue: { transactionAmount: '12.00', transactionCurrency: 'USD' },
    });
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const res = await pay(m, { method: 'paze', token: complete.completeResponse });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'paze',
      instrument_type: 'network_token',
      amount: 1200,
      payment_method: {
        method: 'paze',
        mode: 'card',
        label: '3478',
        scheme: 'visa',
        expiration_date: '12/30',
        details: null,
      },
    });
    const { instrument } = authorize.mock.calls.at(-1)![0] as AuthorizeRequest;
    authorize.mockRestore();
    expect(instrument).toEqual({
      kind: 'network-token',
      token: VISA_DPAN,
      expirationDate: '12/30',
      cryptogram: expect.stringMatching(/^[A-Za-z0-9+/]{27}=$/),
      eci: '07',
      scheme: 'visa',
    });
    cryptograms.add((instrument as { cryptogram: string }).cryptogram);
    const id = res.json().id;
    const captured = await send({
      method: 'POST',
      url: `/transactions/${id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
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
    expect((await send({ method: 'GET', url: `/transactions/${id}`, merchantAccountId: m })).json()).toMatchObject({
      refunded_amount: 1200,
      method: 'paze',
      instrument_type: 'network_token',
    });
  });

  it('the sandbox card choice drives mock-card: a Mastercard is approved, the declined card is declined', async () => {
    const m = await merchantWithPaze();
    const mastercard = await pay(m, {
      method: 'paze',
      token: (await dance(t, m, { card: 'mastercard-debit' })).complete.completeResponse,
    });
    expect(mastercard.json()).toMatchObject({
      status: 'authorization_succeeded',
      payment_method: { scheme: 'mastercard', label: '1488' },
    });
    const declined = await pay(m, {
      method: 'paze',
      token: (await dance(t, m, { card: 'visa-declined' })).complete.completeResponse,
    });
    expect(declined.json()).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
  });

  it("the merchant's own RSA key and a Paze key trusted by PAZE_SIGNING_KEYS; a checkout_token of the same session", async () => {
    const m = await merchantWithPaze({
      payment_processing_private_key: ownKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      extra_configuration: { profile_id: 'PROFILE-1' },
    });
    const res = await pay(m, {
      method: 'paze',
      token: (await own()).completeResponse,
      checkout_token: await sign({ sessionId: 'session-1' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'paze',
      payment_method: { label: '1111' },
    });
  });

  it('a token of svc wallet-token paze pays like a completeResponse', async () => {
    const m = await merchantWithPaze();
    const res = await pay(m, {
      method: 'paze',
      token: (await sandboxPazeToken({ number: MC_DPAN, expirationDate: '11/31' })).completeResponse,
    });
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      payment_method: { expiration_date: '11/31', scheme: 'mastercard' },
    });
  });
});

describe('errors', () => {
  let m: string;
  beforeAll(async () => {
    m = await merchantWithPaze({
      payment_processing_private_key: ownKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
  });

  it('a bad signature, an untrusted signer, a wrong decryption key and a tampered JWE are 400s naming the reason', async () => {
    const { completeResponse } = await own();
    const [h, p, s] = completeResponse.split('.');
    const altered = { ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sessionId: 'session-2' };
    expect400(
      await pay(m, {
        method: 'paze',
        token: `${h}.${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${s}`,
      }),
      'wallet_token_signature',
      'not signed by a trusted Paze signing key',
    );
    expect400(
      await pay(m, {
        method: 'paze',
        token: (await own({ signer: { key: stranger.privateKey, kid: 'test-paze-1' } })).completeResponse,
      }),
      'wallet_token_signature',
      'trusted Paze signing key',
    );
    expect400(
      await pay(m, {
        method: 'paze',
        token: (await own({ recipientPublicKey: createPublicKey(stranger.privateKey) })).completeResponse,
      }),
      'wallet_token_wrong_key',
      'encrypted for another key',
    );
    const parts = (await own()).securedPayload.split('.');
    parts[3] = Buffer.from(Buffer.from(parts[3]!, 'base64url').map((b, i) => (i === 0 ? b ^ 1 : b))).toString(
      'base64url',
    );
    expect400(
      await pay(m, { method: 'paze', token: await sign({ payloadId: 'p', securedPayload: parts.join('.') }) }),
      'wallet_token_decryption',
      'tampered',
    );
  });

  it('an expired JWS, an expired cryptogram and an expired network token are refused; nothing is recorded', async () => {
    expect400(
      await pay(m, {
        method: 'paze',
        token: (await own({ issuedAt: new Date(Date.now() - 3600_000) })).completeResponse,
      }),
      'wallet_token_expired',
      'expired at',
    );
    const stale = [
      {
        dynamicDataValue: 'AgAAAAAABk4DWZ4C28yUQAAAAAA=',
        dynamicDataExpiration: String(Math.floor(Date.now() / 1000) - 60),
      },
    ];
    expect400(
      await pay(m, { method: 'paze', token: (await own({}, { dynamicData: stale })).completeResponse }),
      'wallet_token_expired',
      'cryptogram expired',
    );
    const old = {
      paymentToken: OWN_DPAN,
      tokenExpirationMonth: '01',
      tokenExpirationYear: '2020',
      paymentAccountReference: 'V001',
    };
    expect400(
      await pay(m, { method: 'paze', token: (await own({}, { token: old })).completeResponse }),
      'card_expired',
      'has expired',
    );
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_account_id', '=', m).execute(),
    ).toEqual([]);
  });

  it('a checkout_token of another session or not signed by Paze is refused on its own field', async () => {
    const { completeResponse } = await own();
    expect400(
      await pay(m, { method: 'paze', token: completeResponse, checkout_token: await sign({ sessionId: 'session-9' }) }),
      'wallet_token_malformed',
      'another Paze session',
      '/payment_method/checkout_token',
    );
    expect400(
      await pay(m, {
        method: 'paze',
        token: completeResponse,
        checkout_token: await sign({ sessionId: 'session-1' }, stranger.privateKey),
      }),
      'wallet_token_signature',
      'checkout_token',
      '/payment_method/checkout_token',
    );
  });

  it('a Paze wallet must be registered; store is refused; a missing token is a 422', async () => {
    const { merchantAccountId: bare } = await merchantWithMockCard(t);
    expect400(
      await pay(bare, { method: 'paze', token: (await own()).completeResponse }),
      'wallet_not_registered',
      'No paze digital wallet is registered',
    );
    const stored = await pay(m, { method: 'paze', token: (await own()).completeResponse }, { store: true });
    expect(stored.statusCode).toBe(400);
    expect(stored.json().details[0].pointer).toBe('/store');
    const missing = await pay(m, { method: 'paze' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail[0].loc).toEqual(['body', 'payment_method', 'token']);
  });
});

describe('security', () => {
  it('network tokens and cryptograms appear in no response, log line or table', async () => {
    expect(bodies.length).toBeGreaterThan(10);
    expect(cryptograms.size).toBeGreaterThan(0);
    const secrets = [VISA_DPAN, MC_DPAN, OWN_DPAN, 'AgAAAAAABk4DWZ4C28yUQAAAAAA=', ...cryptograms];
    await expectNoSecrets(t, bodies, secrets);
  });
});
