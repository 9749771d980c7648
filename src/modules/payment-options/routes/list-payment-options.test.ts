import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { mintToken } from '../../../cli/token.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const options = (m: string, payload: object, extra: { token?: string; scopes?: string[] } = {}) =>
  t.request({ method: 'POST', url: '/payment-options', merchantAccountId: m, payload, ...extra });
const CARD_OPTION = {
  type: 'payment-option',
  method: 'card',
  mode: 'card',
  label: 'Card',
  icon_url: null,
  can_store_payment_method: true,
  can_delay_capture: true,
  context: null,
};

describe('happy', () => {
  it('offers the card option of an active mock-card service', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await options(m, {
      amount: 1299,
      currency: 'USD',
      country: 'US',
      locale: 'en-GB',
      metadata: { order: '1' },
      cart_items: [{ name: 'Tea', quantity: 1, unit_amount: 1299 }],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ items: [CARD_OPTION] });
    expect((await options(m, {})).json()).toEqual({ items: [CARD_OPTION] });
  });

  it('keeps one option per method across several services', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const second = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Second',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'm-2' }],
        accepted_currencies: ['JPY'],
        accepted_countries: ['JP'],
      },
    });
    expect(second.statusCode, second.body).toBe(201);
    expect((await options(m, { currency: 'USD' })).json().items).toHaveLength(1);
    expect((await options(m, { currency: 'JPY', country: 'JP' })).json()).toEqual({ items: [CARD_OPTION] });
  });

  it('answers an empty list without a service that accepts the currency or country', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    expect((await options(m, { currency: 'JPY' })).json()).toEqual({ items: [] });
    expect((await options(m, { currency: 'USD', country: 'JP' })).json()).toEqual({ items: [] });
    expect((await options(await createMerchantAccount(t.deps), { currency: 'USD' })).json()).toEqual({ items: [] });
  });

  it('leaves inactive services out', async () => {
    const { merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/payment-services/${paymentServiceId}`,
          merchantAccountId: m,
          payload: { active: false },
        })
      ).statusCode,
    ).toBe(200);
    expect((await options(m, {})).json()).toEqual({ items: [] });
  });

  it('is open to embed tokens, whose pins apply to the body', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const token = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['embed'],
      lifetimeSeconds: 3600,
      embed: { merchant_account_id: m, currency: 'JPY', buyer_external_identifier: 'b-1' },
    });
    const pinned = await t.request({ method: 'POST', url: '/payment-options', token, payload: {} });
    expect(pinned.statusCode, pinned.body).toBe(200);
    expect(pinned.json()).toEqual({ items: [] });
    const contradicting = await t.request({
      method: 'POST',
      url: '/payment-options',
      token,
      payload: { currency: 'USD' },
    });
    expect(contradicting.statusCode).toBe(403);
  });
});

describe('errors', () => {
  it('answers 422 for an invalid body', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    for (const payload of [{ currency: 'usd' }, { country: 'XX1' }, { amount: -1 }, { cart_items: [{ name: 'x' }] }]) {
      expect((await options(m, payload)).statusCode, JSON.stringify(payload)).toBe(422);
    }
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({ method: 'POST', url: '/payment-options', payload: {} }),
    scope: 'payment-options.read',
  });

  it("never shows another merchant account's services", async () => {
    await merchantWithMockCard(t);
    const mine = await createMerchantAccount(t.deps);
    expect((await options(mine, { currency: 'USD', country: 'US' })).json()).toEqual({ items: [] });
  });
});
