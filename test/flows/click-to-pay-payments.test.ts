import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuthorizeRequest } from '../../src/connectors/connector.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { expectNoSecrets } from '../helpers/leak-scan.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Paying with Click to Pay, in its two shapes told apart by `number`: a device token with its
 * cryptogram (a network token for the connector) and a card number (a card: BIN, fingerprint).
 * The merchant account's Click to Pay wallet is required; payment options offer Click to Pay; the
 * token, cryptogram and card number appear in no response, log line or table.
 */

const DPAN = '4895370012003478';
const CRYPTOGRAM = 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=';
const PAN = '5555555555554444';

let t: TestApp;
const bodies: string[] = [];
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

async function send(options: Parameters<TestApp['request']>[0]) {
  const res = await t.request(options);
  bodies.push(res.body);
  return res;
}

async function merchantWithClickToPay() {
  const { merchantAccountId } = await merchantWithMockCard(t);
  const res = await send({
    method: 'POST',
    url: '/digital-wallets',
    merchantAccountId,
    payload: { provider: 'click-to-pay', merchant_name: 'C2P Shop', accept_terms_and_conditions: true },
  });
  expect(res.statusCode, res.body).toBe(201);
  return merchantAccountId;
}

const pay = (merchantAccountId: string, paymentMethod: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  send({
    method: 'POST',
    url: '/transactions',
    merchantAccountId,
    payload: {
      amount: 1500,
      currency: 'USD',
      country: 'US',
      payment_method: { method: 'click-to-pay', ...paymentMethod },
      ...extra,
    },
  });

const token = (extra: Record<string, unknown> = {}) => ({
  token: DPAN,
  cryptogram: CRYPTOGRAM,
  expiration_date: '12/30',
  ...extra,
});

describe('happy', () => {
  it('a device token: a network token with its cryptogram, captured and refunded', async () => {
    const m = await merchantWithClickToPay();
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const res = await pay(m, token({ external_identifier: 'c2p-1' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'click-to-pay',
      instrument_type: 'network_token',
      payment_method: {
        method: 'click-to-pay',
        mode: 'click-to-pay',
        label: '3478',
        scheme: 'visa',
        expiration_date: '12/30',
        details: null,
      },
    });
    expect((authorize.mock.calls.at(-1)![0] as AuthorizeRequest).instrument).toEqual({
      kind: 'network-token',
      token: DPAN,
      expirationDate: '12/30',
      cryptogram: CRYPTOGRAM,
      eci: null,
      scheme: 'visa',
    });
    authorize.mockRestore();
    const id = res.json().id;
    expect(
      (await send({ method: 'POST', url: `/transactions/${id}/capture`, merchantAccountId: m, payload: {} })).json(),
    ).toMatchObject({ status: 'succeeded' });
    expect(
      (
        await send({
          method: 'POST',
          url: `/transactions/${id}/refunds`,
          merchantAccountId: m,
          payload: { amount: 1500 },
        })
      ).json(),
    ).toMatchObject({ status: 'succeeded', amount: 1500 });
  });

  it('a card number: a card with BIN and fingerprint, which store may vault', async () => {
    const m = await merchantWithClickToPay();
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const res = await pay(
      m,
      { number: PAN, expiration_date: '11/31', security_code: '123', card_type: 'debit' },
      { store: true },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      method: 'click-to-pay',
      instrument_type: 'pan',
      payment_method: {
        method: 'click-to-pay',
        mode: 'click-to-pay',
        label: '4444',
        fingerprint: expect.any(String),
        details: { bin: '55555555' },
      },
    });
    expect((authorize.mock.calls.at(-1)![0] as AuthorizeRequest).instrument).toMatchObject({
      kind: 'card',
      number: PAN,
      securityCode: '123',
      scheme: 'mastercard',
    });
    authorize.mockRestore();
  });

  it('payment options offer Click to Pay once its wallet is registered', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const options = async () =>
      (
        await send({
          method: 'POST',
          url: '/payment-options',
          merchantAccountId: m,
          payload: { currency: 'USD', country: 'US' },
        })
      ).json().items;
    expect((await options()).map((o: { method: string }) => o.method)).toEqual(['card']);
    await send({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId: m,
      payload: { provider: 'click-to-pay', merchant_name: 'C2P Shop', accept_terms_and_conditions: true },
    });
    await send({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId: m,
      payload: { provider: 'paze', merchant_name: 'C2P Shop', accept_terms_and_conditions: true },
    });
    const items = await options();
    // Paze is not offered: no payment option mode names it.
    expect(items.map((o: { method: string }) => o.method)).toEqual(['card', 'click-to-pay']);
    expect(items[1]).toMatchObject({
      mode: 'click-to-pay',
      label: 'Click to Pay',
      can_store_payment_method: false,
      can_delay_capture: true,
      context: { merchant_name: expect.any(String), supported_schemes: expect.arrayContaining(['visa', 'mastercard']) },
    });
    expect(
      (
        await send({ method: 'POST', url: '/payment-options', merchantAccountId: m, payload: { currency: 'JPY' } })
      ).json().items,
    ).toEqual([]);
  });

  it('OpenAPI shows both Click to Pay forms and the Paze form', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).body;
    for (const title of [
      'ClickToPayPaymentMethodCreate',
      'ClickToPayFPANPaymentMethodCreate',
      'PazePaymentMethodCreate',
    ])
      expect(doc).toContain(`"title":"${title}"`);
  });
});

describe('errors', () => {
  let m: string;
  beforeAll(async () => {
    m = await merchantWithClickToPay();
  });

  it('422s name the missing or invalid field of the form the keys choose', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ token: DPAN, expiration_date: '12/30' }, ['cryptogram']],
      [{ token: DPAN, cryptogram: CRYPTOGRAM }, ['expiration_date']],
      [{ token: '1234', cryptogram: CRYPTOGRAM, expiration_date: '12/30' }, ['token']],
      [{ number: '4111', expiration_date: '12/30' }, ['number']],
      [{ number: PAN }, ['expiration_date']],
      [{ number: PAN, expiration_date: '12/30', security_code: '12' }, ['security_code']],
      [{}, ['token', 'cryptogram', 'expiration_date']],
    ];
    for (const [form, fields] of cases) {
      const res = await pay(m, form);
      expect(res.statusCode, JSON.stringify(form)).toBe(422);
      const locs = res.json().detail.map((d: { loc: string[] }) => d.loc.join('/'));
      for (const field of fields) expect(locs, JSON.stringify(form)).toContain(`body/payment_method/${field}`);
    }
  });

  it('the Click to Pay wallet is required; an expired token and store with a device token are refused', async () => {
    const { merchantAccountId: bare } = await merchantWithMockCard(t);
    for (const form of [token(), { number: PAN, expiration_date: '11/31' }]) {
      const res = await pay(bare, form);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        message: expect.stringContaining('No click-to-pay digital wallet is registered'),
        details: [{ pointer: '/payment_method/method', type: 'wallet_not_registered' }],
      });
    }
    const expired = await pay(m, token({ expiration_date: '01/20' }));
    expect(expired.json()).toMatchObject({
      status: 400,
      details: [{ pointer: '/payment_method/expiration_date', type: 'card_expired' }],
    });
    const stored = await pay(m, token(), { store: true });
    expect(stored.json()).toMatchObject({ status: 400, details: [{ pointer: '/store' }] });
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_account_id', '=', m).execute(),
    ).toEqual([]);
  });
});

describe('security', () => {
  it('the device token, the cryptogram and the card number appear in no response, log line or table', async () => {
    expect(bodies.length).toBeGreaterThan(10);
    await expectNoSecrets(t, bodies, [DPAN, CRYPTOGRAM, PAN]);
  });
});
