import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { credentialsOf, findUsablePaymentService, listRoutablePaymentServices } from '../payment-services.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const SECRET = 'sk_live_TOPSECRET_42';
const BODY = {
  display_name: 'Mock card',
  payment_service_definition_id: 'mock-card',
  fields: [
    { key: 'merchant_id', value: 'm-1' },
    { key: 'api_key', value: SECRET },
  ],
  accepted_currencies: ['EUR'],
  accepted_countries: ['GB'],
};

async function created(merchantAccountId: string, payload: object = BODY) {
  const res = await t.request({ method: 'POST', url: '/payment-services', payload, merchantAccountId });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
const put = (m: string, id: string, payload: object) =>
  t.request({ method: 'PUT', url: `/payment-services/${id}`, merchantAccountId: m, payload });
const verify = (m: string, payload: object) =>
  t.request({ method: 'POST', url: '/payment-services/verify', merchantAccountId: m, payload });
const row = (m: string, id: string) =>
  t.deps.db
    .selectFrom('payment_services')
    .selectAll()
    .where('merchant_account_id', '=', m)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

async function auditText(): Promise<string> {
  const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
  return audit.rows.map((r) => r.text).join('\n');
}

describe('happy', () => {
  it('stores the secret encrypted, opens it for connector calls, and shows it nowhere', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = await created(m);
    const stored = await row(m, service.id);
    expect(stored.fields).toEqual({ merchant_id: 'm-1' });
    expect(Object.keys(stored.sealed_fields)).toEqual(['field:api_key']);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(await credentialsOf(t.deps.db, t.deps, stored)).toEqual({ merchant_id: 'm-1', api_key: SECRET });

    const answers = [
      (await t.request({ method: 'GET', url: `/payment-services/${service.id}`, merchantAccountId: m })).body,
      (await t.request({ method: 'GET', url: '/payment-services', merchantAccountId: m })).body,
      (await put(m, service.id, { fields: [{ key: 'multi_capture_enabled', value: 'true' }] })).body,
      (await verify(m, { payment_service_definition_id: 'mock-card', payment_service_id: service.id, fields: [] }))
        .body,
      (
        await t.request({
          method: 'POST',
          url: `/payment-services/${service.id}/sessions`,
          merchantAccountId: m,
          payload: {},
        })
      ).body,
    ];
    for (const body of answers) expect(body).not.toContain(SECRET);
    expect(await auditText()).not.toContain(SECRET);
    expect(t.logs.join('\n')).not.toContain(SECRET);
  });

  it('merges fields key by key on update, re-verifies, and keeps the secret unless replaced', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = await created(m);
    const res = await put(m, service.id, {
      fields: [
        { key: 'multi_capture_enabled', value: 'true' },
        { key: 'merchant_id', value: 'm-2' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().fields).toEqual([
      { key: 'merchant_id', value: 'm-2' },
      { key: 'multi_capture_enabled', value: 'true' },
    ]);
    expect(await credentialsOf(t.deps.db, t.deps, await row(m, service.id))).toEqual({
      merchant_id: 'm-2',
      multi_capture_enabled: 'true',
      api_key: SECRET,
    });
    // An empty value removes an optional field, secret ones included.
    expect(
      (
        await put(m, service.id, {
          fields: [
            { key: 'api_key', value: '' },
            { key: 'multi_capture_enabled', value: '' },
          ],
        })
      ).statusCode,
    ).toBe(200);
    expect(await credentialsOf(t.deps.db, t.deps, await row(m, service.id))).toEqual({ merchant_id: 'm-2' });
    expect((await put(m, service.id, { fields: [{ key: 'api_key', value: 'sk_new' }] })).statusCode).toBe(200);
    expect((await credentialsOf(t.deps.db, t.deps, await row(m, service.id))).api_key).toBe('sk_new');
  });

  it('verifies credentials without storing them, merging over a stored service when named', async () => {
    const m = await createMerchantAccount(t.deps);
    const ok = await verify(m, {
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'm-9' }],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({});
    const service = await created(m);
    expect(
      (
        await verify(m, {
          payment_service_definition_id: 'mock-card',
          payment_service_id: service.id,
          fields: [{ key: 'api_key', value: 'other' }],
        })
      ).statusCode,
    ).toBe(200);
    expect(
      await t.deps.db.selectFrom('payment_services').select('id').where('merchant_account_id', '=', m).execute(),
    ).toHaveLength(1);
  });

  it('opens a session with the stored credentials', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = await created(m);
    const res = await t.request({
      method: 'POST',
      url: `/payment-services/${service.id}/sessions`,
      merchantAccountId: m,
      payload: { domain: 'shop.example' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      type: 'payment-service-session',
      status: 'succeeded',
      status_code: 200,
      response_body: { merchant_id: 'm-1' },
    });
  });

  it('gives the transaction engine usable services in routing order', async () => {
    const m = await createMerchantAccount(t.deps);
    const first = await created(m);
    const second = await created(m);
    const top = await created(m, { ...BODY, position: 0 });
    const inactive = await created(m, { ...BODY, active: false });
    const gone = await created(m);
    expect(
      (await t.request({ method: 'DELETE', url: `/payment-services/${gone.id}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    expect((await listRoutablePaymentServices(t.deps.db, t.deps, m)).map((r) => r.id)).toEqual([
      top.id,
      first.id,
      second.id,
    ]);
    expect((await findUsablePaymentService(t.deps.db, m, inactive.id))?.id).toBe(inactive.id);
    expect(await findUsablePaymentService(t.deps.db, m, gone.id)).toBeNull();
    expect(await findUsablePaymentService(t.deps.db, 'default', first.id)).toBeNull();
    // Deleting destroys the secret values.
    expect((await row(m, gone.id)).sealed_fields).toEqual({});
  });
});

describe('errors', () => {
  it('answers verify problems with 400 naming each field, never echoing a secret', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await verify(m, {
      payment_service_definition_id: 'mock-card',
      fields: [
        { key: 'api_key', value: SECRET },
        { key: 'multi_capture_enabled', value: SECRET },
      ],
    });
    expect(res.statusCode).toBe(400);
    const messages = res.json().details.map((d: { message: string }) => d.message);
    expect(messages).toEqual(['merchant_id: is required']);
    expect(res.body).not.toContain(SECRET);
    const refused = await verify(m, {
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'invalid' }],
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0].message).toMatch(/^merchant_id: /);
    expect((await verify(m, { payment_service_definition_id: 'nope-card', fields: [] })).statusCode).toBe(400);
  });

  it('refuses an update whose merged credentials fail, leaving the service unchanged', async () => {
    const m = await createMerchantAccount(t.deps);
    const service = await created(m);
    const res = await put(m, service.id, { fields: [{ key: 'merchant_id', value: '' }], display_name: 'not applied' });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toBe('merchant_id: is required');
    expect((await row(m, service.id)).display_name).toBe('Mock card');
    expect(t.logs.join('\n')).not.toContain(SECRET);
  });
});

describe('security', () => {
  describe('verify', () =>
    runScopeTests(() => t, {
      request: () => ({
        method: 'POST',
        url: '/payment-services/verify',
        payload: { payment_service_definition_id: 'mock-card', fields: [{ key: 'merchant_id', value: 'x' }] },
      }),
      scope: 'payment-services.write',
    }));
  describe('session', () =>
    runScopeTests(() => t, {
      request: async () => ({
        method: 'POST',
        url: `/payment-services/${(await created('default')).id}/sessions`,
        payload: {},
      }),
      scope: 'payment-services.write',
    }));
});
