import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import type { PaymentConnector } from '../../../connectors/connector.ts';
import { MOCK_CARD_DEFINITION, MockCardConnector } from '../../../connectors/mock/mock-card.connector.ts';
import { ConnectorRegistry } from '../../../connectors/registry.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const SERVICE_BODY = {
  display_name: 'Mock card',
  payment_service_definition_id: 'mock-card',
  fields: [
    { key: 'merchant_id', value: 'm-123' },
    { key: 'api_key', value: 'sk_live_TOPSECRET_1' },
  ],
  accepted_currencies: ['EUR', 'USD'],
  accepted_countries: ['GB', 'DE'],
};

const create = (merchantAccountId: string, payload: object = SERVICE_BODY) =>
  t.request({ method: 'POST', url: '/payment-services', payload, merchantAccountId });
const get = (merchantAccountId: string, id: string) =>
  t.request({ method: 'GET', url: `/payment-services/${id}`, merchantAccountId });
const list = (merchantAccountId: string, query = '') =>
  t.request({ method: 'GET', url: `/payment-services${query}`, merchantAccountId });

async function created(merchantAccountId: string, payload: object = SERVICE_BODY) {
  const res = await create(merchantAccountId, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('happy', () => {
  it('creates, reads, lists, updates and deletes a payment service', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = await created(m);
    expect(service).toMatchObject({
      type: 'payment-service',
      merchant_account_id: m,
      payment_service_definition_id: 'mock-card',
      method: 'card',
      display_name: 'Mock card',
      active: true,
      status: 'created',
      position: 1,
      accepted_currencies: ['EUR', 'USD'],
      accepted_countries: ['GB', 'DE'],
      three_d_secure_enabled: false,
      payment_method_tokenization_enabled: false,
      network_tokens_enabled: false,
      open_loop: false,
      settlement_reporting_enabled: false,
      merchant_profile: null,
      webhook_url: null,
      fields: [{ key: 'merchant_id', value: 'm-123' }],
      reporting_fields: [],
      is_deleted: false,
    });
    expect((await get(m, service.id)).json()).toEqual(service);
    expect((await list(m)).json()).toEqual({ items: [service], limit: 20, next_cursor: null, previous_cursor: null });

    const updated = await t.request({
      method: 'PUT',
      url: `/payment-services/${service.id}`,
      merchantAccountId: m,
      payload: { display_name: 'Renamed', active: false, position: 7, open_loop: null },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      display_name: 'Renamed',
      active: false,
      position: 7,
      open_loop: false,
      fields: [{ key: 'merchant_id', value: 'm-123' }],
    });

    const deleted = await t.request({ method: 'DELETE', url: `/payment-services/${service.id}`, merchantAccountId: m });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await get(m, service.id)).json()).toMatchObject({ id: service.id, is_deleted: true });
    expect((await list(m)).json().items).toEqual([]);
    expect((await list(m, '?deleted=true')).json().items.map((s: { id: string }) => s.id)).toEqual([service.id]);

    const audit = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'operation_id', 'resource_type'])
      .where('resource_id', '=', service.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => `${a.action}:${a.operation_id}:${a.resource_type}`)).toEqual([
      'created:createPaymentService:payment-service',
      'updated:updatePaymentService:payment-service',
      'deleted:deletePaymentService:payment-service',
    ]);
  });

  it('places a new service after the last one of its method unless a position is given', async () => {
    const m = await createMerchantAccount(t.deps);
    const one = await created(m);
    const two = await created(m);
    const pinned = await created(m, { ...SERVICE_BODY, position: 0 });
    expect([one.position, two.position, pinned.position]).toEqual([1, 2, 0]);
    expect((await created(m)).position).toBe(3);
  });

  it('keeps optional settings and a merchant profile per scheme', async () => {
    const m = await createMerchantAccount(t.deps);
    const profile = {
      merchant_acquirer_bin: '411111',
      merchant_acquirer_id: 'acq',
      merchant_name: 'Shop',
      merchant_country_code: '826',
      merchant_category_code: '5999',
      merchant_url: 'https://shop.example',
    };
    const service = await created(m, {
      ...SERVICE_BODY,
      active: false,
      three_d_secure_enabled: true,
      network_tokens_enabled: true,
      settlement_reporting_enabled: true,
      merchant_profile: { visa: profile, amex: null },
    });
    expect(service).toMatchObject({
      active: false,
      three_d_secure_enabled: true,
      network_tokens_enabled: true,
      settlement_reporting_enabled: true,
    });
    expect(Object.keys(service.merchant_profile)).toEqual(['visa']);
    expect(service.merchant_profile.visa).toEqual({ ...profile, created_at: expect.any(String) });
    const put = (payload: object) =>
      t.request({ method: 'PUT', url: `/payment-services/${service.id}`, merchantAccountId: m, payload });
    const both = (await put({ merchant_profile: { mastercard: { ...profile, merchant_name: 'MC' } } })).json();
    expect(Object.keys(both.merchant_profile).sort()).toEqual(['mastercard', 'visa']);
    expect(Object.keys((await put({ merchant_profile: { visa: null } })).json().merchant_profile)).toEqual([
      'mastercard',
    ]);
    expect((await put({ merchant_profile: null })).json().merchant_profile).toBeNull();
  });

  it('filters by method and pages newest first', async () => {
    const m = await createMerchantAccount(t.deps);
    const ids = [(await created(m)).id, (await created(m)).id, (await created(m)).id];
    const page1 = (await list(m, '?limit=2&method=card')).json();
    expect(page1.items.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    const page2 = (await list(m, `?limit=2&method=card&cursor=${page1.next_cursor}`)).json();
    expect(page2.items.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect((await list(m, '?method=paypal')).json().items).toEqual([]);
    // A cursor of one filter is refused by another.
    expect((await list(m, `?limit=2&cursor=${page1.next_cursor}`)).statusCode).toBe(400);
  });
});

describe('errors', () => {
  it('refuses an unknown definition, naming it and every valid id', async () => {
    const res = await create('default', { ...SERVICE_BODY, payment_service_definition_id: 'nope-card' });
    expect(res.statusCode).toBe(400);
    // Every definition of the registry, sorted: the list grows with each connector.
    const ids = t.deps.connectors
      .definitions()
      .map((d) => d.id)
      .sort();
    expect(ids).toEqual(expect.arrayContaining(['adyen-card', 'mock-card', 'mock-paybybank', 'stripe-card']));
    const message = `unknown payment_service_definition_id "nope-card"; valid ids: ${ids.join(', ')}`;
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      message,
      details: [{ pointer: '/payment_service_definition_id', message }],
    });
  });

  it('refuses a missing required field, an unknown key and a key sent twice', async () => {
    const missing = await create('default', {
      ...SERVICE_BODY,
      fields: [
        { key: 'api_key', value: 'sk_x' },
        { key: 'merchant_id', value: ' ' },
      ],
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().details).toEqual([
      { location: 'body', pointer: '/fields', message: 'merchant_id: is required', type: 'value_error' },
    ]);
    const unknown = await create('default', {
      ...SERVICE_BODY,
      fields: [...SERVICE_BODY.fields, { key: 'color', value: 'blue' }],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].message).toBe('color: is not a field of the definition mock-card');
    const twice = await create('default', {
      ...SERVICE_BODY,
      fields: [...SERVICE_BODY.fields, { key: 'merchant_id', value: 'again' }],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().details[0].message).toBe('merchant_id: is sent more than once');
  });

  it('refuses credentials the connector rejects, naming each field', async () => {
    const res = await create('default', {
      ...SERVICE_BODY,
      fields: [
        { key: 'merchant_id', value: 'invalid' },
        { key: 'multi_capture_enabled', value: 'maybe' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { message: string }) => d.message.split(':')[0])).toEqual([
      'merchant_id',
      'multi_capture_enabled',
    ]);
  });

  it('refuses invalid currency and country codes', async () => {
    expect((await create('default', { ...SERVICE_BODY, accepted_currencies: ['XYZ'] })).statusCode).toBe(422);
    expect((await create('default', { ...SERVICE_BODY, accepted_countries: ['ZZ'] })).statusCode).toBe(422);
    expect((await create('default', { ...SERVICE_BODY, accepted_countries: [] })).statusCode).toBe(422);
  });

  it('refuses currencies and countries the definition does not support', async () => {
    const definition = {
      ...MOCK_CARD_DEFINITION,
      id: 'narrow-card',
      supportedCurrencies: ['EUR'],
      supportedCountries: ['GB'],
    };
    const narrow = Object.assign(Object.create(new MockCardConnector()) as PaymentConnector, { definition });
    const saved = t.deps.connectors;
    t.deps.connectors = new ConnectorRegistry().register(new MockCardConnector()).register(narrow);
    try {
      const res = await create('default', {
        ...SERVICE_BODY,
        payment_service_definition_id: 'narrow-card',
        accepted_currencies: ['EUR', 'USD'],
        accepted_countries: ['DE', 'GB'],
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { pointer: string }) => d.pointer)).toEqual([
        '/accepted_currencies/1',
        '/accepted_countries/0',
      ]);
      const ok = await created('default', {
        ...SERVICE_BODY,
        payment_service_definition_id: 'narrow-card',
        accepted_currencies: ['EUR'],
        accepted_countries: ['GB'],
      });
      const put = await t.request({
        method: 'PUT',
        url: `/payment-services/${ok.id}`,
        payload: { accepted_currencies: ['JPY'] },
      });
      expect(put.statusCode).toBe(400);
    } finally {
      t.deps.connectors = saved;
    }
  });

  it('answers 404 for unknown services and for changing a deleted one', async () => {
    const m = await createMerchantAccount(t.deps);
    expect((await get(m, UNKNOWN)).statusCode).toBe(404);
    const service = await created(m);
    expect(
      (await t.request({ method: 'DELETE', url: `/payment-services/${service.id}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    expect(
      (await t.request({ method: 'DELETE', url: `/payment-services/${service.id}`, merchantAccountId: m })).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/payment-services/${service.id}`,
          merchantAccountId: m,
          payload: { display_name: 'x' },
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'POST',
          url: `/payment-services/${service.id}/sessions`,
          merchantAccountId: m,
          payload: {},
        })
      ).statusCode,
    ).toBe(404);
  });
});

describe('security', () => {
  it("answers 404 for another merchant account's service on every operation", async () => {
    const a = await createMerchantAccount(t.deps);
    const b = await createMerchantAccount(t.deps);
    const service = await created(a);
    const url = `/payment-services/${service.id}`;
    for (const request of [
      { method: 'GET' as const, url },
      { method: 'PUT' as const, url, payload: { display_name: 'taken' } },
      { method: 'DELETE' as const, url },
      { method: 'POST' as const, url: `${url}/sessions`, payload: {} },
      {
        method: 'POST' as const,
        url: '/payment-services/verify',
        payload: { payment_service_definition_id: 'mock-card', payment_service_id: service.id, fields: [] },
      },
    ]) {
      expect(
        (await t.request({ ...request, merchantAccountId: b })).statusCode,
        `${request.method} ${request.url}`,
      ).toBe(404);
    }
    expect((await list(b)).json().items).toEqual([]);
    expect((await get(a, service.id)).json()).toEqual(service);
  });

  const one = async () => (await created('default')).id as string;
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/payment-services', payload: SERVICE_BODY }),
      scope: 'payment-services.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/payment-services' }),
      scope: 'payment-services.read',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'GET', url: `/payment-services/${await one()}` }),
      scope: 'payment-services.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'PUT', url: `/payment-services/${await one()}`, payload: {} }),
      scope: 'payment-services.write',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'DELETE', url: `/payment-services/${await one()}` }),
      scope: 'payment-services.write',
    }));
});
