import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { createTestKeyPair, type TestKeyPair } from '../helpers/tokens.ts';

/**
 * Cross-merchant isolation over every route, generated from the route table: merchant account A
 * owns one resource of each kind, and a credential of merchant account B tries every operation on
 * them. A new route whose path parameter or body has no entry below fails this test until one is
 * added, so no route escapes the check.
 */

/** Creates, in merchant account A, the resource a path parameter names; returns its id. */
type Fixture = (t: TestApp, a: string) => Promise<string>;

const FIXTURES: Record<string, Fixture> = {
  merchant_account_id: async (_t, a) => a,
  three_ds_configuration_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: `/merchant-accounts/${a}/three-ds-configurations`, payload: THREE_DS_BODY });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  api_key_pair_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/api-key-pairs', payload: { display_name: 'owned by A', merchant_account_id: a } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  buyer_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/buyers', payload: BUYER_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  payment_method_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/payment-methods', payload: CARD_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // Fixtures run in this order: the network token belongs to the payment method above.
  network_token_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: `/payment-methods/${ids.payment_method_id}/network-tokens`, payload: NETWORK_TOKEN_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  session_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: '/checkout/sessions', payload: { amount: 1299, currency: 'EUR', metadata: { owner: 'A' } }, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
  // Fixtures run in this order: the shipping details belong to the buyer above.
  shipping_details_id: async (t, a) => {
    const res = await t.request({ method: 'POST', url: `/buyers/${ids.buyer_id}/shipping-details`, payload: SHIPPING_BODY, merchantAccountId: a });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id;
  },
};

const CARD_BODY = { method: 'card', number: '4111111111111111', expiration_date: '12/39' };
const NETWORK_TOKEN_BODY = { merchant_initiated: false, is_subsequent_payment: false };
const BUYER_BODY = { display_name: 'Buyer of A', external_identifier: 'buyer-a', billing_details: { first_name: 'Ada', email_address: 'ada@a.example' } };
const SHIPPING_BODY = { first_name: 'Ada', address: { line1: '1 A Street', country: 'GB' } };

const THREE_DS_BODY = {
  merchant_acquirer_bin: '411111',
  merchant_acquirer_id: 'acq-1',
  merchant_name: 'Merchant A',
  merchant_country_code: '826',
  merchant_category_code: '5999',
  merchant_url: 'https://a.example',
  scheme: 'visa',
  currency: 'GBP',
  metadata: {},
};

/** A valid body per operation, so the request reaches the tenancy check instead of stopping at validation. */
const BODIES: Record<string, () => unknown> = {
  createMerchantAccount: () => ({ id: `b-${uuidv7().slice(-8)}`, display_name: 'B made this' }),
  updateMerchantAccount: () => ({ display_name: 'taken over' }),
  createThreeDsConfiguration: () => ({ ...THREE_DS_BODY, scheme: 'mastercard' }),
  editThreeDsConfiguration: () => ({ merchant_name: 'taken over' }),
  createApiKeyPair: () => ({ display_name: 'made by B' }),
  updateApiKeyPair: () => ({ display_name: 'taken over', active: false }),
  // No external_identifier: the same body is sent by two credentials, and the second would be a duplicate.
  addBuyer: () => ({ display_name: 'B made this', billing_details: BUYER_BODY.billing_details }),
  updateBuyer: () => ({ display_name: 'taken over' }),
  addBuyerShippingDetails: () => ({ ...SHIPPING_BODY, first_name: 'B made this' }),
  updateBuyerShippingDetails: () => ({ first_name: 'taken over' }),
  createPaymentMethod: () => ({ ...CARD_BODY, buyer_id: ids.buyer_id }),
  // A's card named by B: it does not qualify, so B gets 204 and A's card gets no inquiry.
  createAccountUpdaterJob: () => ({ payment_method_ids: [ids.payment_method_id] }),
  createCheckoutSession: () => ({ amount: 1, currency: 'USD' }),
  updateCheckoutSession: () => ({ amount: 1, metadata: { owner: 'B' } }),
  createCheckoutSessionFields: () => ({ payment_method: { method: 'id', id: ids.payment_method_id } }),
  updateCheckoutSessionFields: () => ({ payment_method: { ...CARD_BODY, number: '5555555555554444' } }),
  createPaymentMethodNetworkToken: () => NETWORK_TOKEN_BODY,
  suspendPaymentMethodNetworkToken: () => ({}),
  resumePaymentMethodNetworkToken: () => ({}),
  createPaymentMethodNetworkTokenCryptogram: () => ({ merchant_initiated: false }),
};

/** A valid query string per operation that requires one (a GET answering 422 fails the check below). */
const QUERIES: Record<string, () => string> = {
  getCardDetails: () => 'bin=42424242',
  listBuyerPaymentMethods: () => `buyer_id=${ids.buyer_id}`,
};

let t: TestApp;
let a: string;
let b: string;
let limitedToB: TestKeyPair;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  a = await createMerchantAccount(t.deps, { id: `tenant-a-${uuidv7().slice(-8)}` });
  b = await createMerchantAccount(t.deps, { id: `tenant-b-${uuidv7().slice(-8)}` });
  limitedToB = await createTestKeyPair(t.deps, b);
  for (const [param, fixture] of Object.entries(FIXTURES)) ids[param] = await fixture(t, a);
});
afterAll(async () => t.close());

function protectedRoutes() {
  return t.registeredRoutes.filter((route) => !route.public && route.method !== 'HEAD' && !route.url.startsWith('/test-only'));
}

describe('security', () => {
  it('covers every protected route with fixtures and bodies', () => {
    const missing: string[] = [];
    for (const route of protectedRoutes()) {
      for (const [, param] of route.url.matchAll(/:([a-z_]+)/g)) if (!FIXTURES[param!]) missing.push(`fixture for :${param} (${route.method} ${route.url})`);
      if ((route.method === 'POST' || route.method === 'PUT') && !BODIES[route.config.operationId!]) missing.push(`body for ${route.config.operationId}`);
    }
    expect(missing).toEqual([]);
  });

  it("lets no credential of merchant account B read, change or delete merchant account A's resources", async () => {
    const failures: string[] = [];
    const secrets = Object.values(ids).filter((id) => id !== a);
    for (const route of protectedRoutes()) {
      const query = QUERIES[route.config.operationId!]?.();
      const url = route.url.replace(/:([a-z_]+)/g, (_m, param: string) => ids[param]!) + (query ? `?${query}` : '');
      const payload = BODIES[route.config.operationId!]?.();
      const attempts = [{ label: 'key pair limited to B', token: await limitedToB.token(), merchantAccountId: undefined as string | undefined }];
      // The checkout session id is the credential there (a bearer token means nothing): the only way
      // to reach for merchant account B is to name it, which the session's pinned account refuses.
      if (route.config.credential === 'checkout-session') attempts.pop();
      if (route.config.merchantScoped !== false) attempts.push({ label: 'instance-wide key acting on B', token: await t.keys.token(), merchantAccountId: b });
      for (const attempt of attempts) {
        const res = await t.request({ method: route.method as 'GET', url, token: attempt.token, ...(attempt.merchantAccountId ? { merchantAccountId: attempt.merchantAccountId } : {}), ...(payload ? { payload } : {}) });
        const where = `${route.method} ${route.url} (${attempt.label}) → ${res.statusCode}`;
        const touchesA = route.url.includes(':');
        if (touchesA) {
          if (![403, 404].includes(res.statusCode)) failures.push(`${where}: expected 403 or 404`);
        } else if (res.statusCode < 300) {
          // Lists and creates act on B only: nothing of A may appear in the answer.
          if (res.body.includes(a) || secrets.some((id) => res.body.includes(id))) failures.push(`${where}: the answer shows merchant account A's data`);
        } else if (![403, 404].includes(res.statusCode)) {
          failures.push(`${where}: unexpected status`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("leaves merchant account A's resources as they were", async () => {
    expect((await t.request({ method: 'GET', url: `/merchant-accounts/${a}` })).json().display_name).toBe(`Merchant ${a}`);
    const configs = (await t.request({ method: 'GET', url: `/merchant-accounts/${a}/three-ds-configurations` })).json();
    expect(configs.items.map((c: { id: string; merchant_name: string }) => [c.id, c.merchant_name])).toEqual([[ids.three_ds_configuration_id, 'Merchant A']]);
    const pair = (await t.request({ method: 'GET', url: `/api-key-pairs/${ids.api_key_pair_id}` })).json();
    expect(pair).toMatchObject({ display_name: 'owned by A', active: true });
    const buyer = (await t.request({ method: 'GET', url: `/buyers/${ids.buyer_id}`, merchantAccountId: a })).json();
    expect(buyer).toMatchObject({ display_name: 'Buyer of A', external_identifier: 'buyer-a', billing_details: { first_name: 'Ada' } });
    const shipping = (await t.request({ method: 'GET', url: `/buyers/${ids.buyer_id}/shipping-details`, merchantAccountId: a })).json();
    expect(shipping.items.map((s: { id: string; first_name: string }) => [s.id, s.first_name])).toEqual([[ids.shipping_details_id, 'Ada']]);
    const tokens = (await t.request({ method: 'GET', url: `/payment-methods/${ids.payment_method_id}/network-tokens`, merchantAccountId: a })).json();
    expect(tokens.items.map((n: { id: string; status: string }) => [n.id, n.status])).toEqual([[ids.network_token_id, 'active']]);
  });
});
