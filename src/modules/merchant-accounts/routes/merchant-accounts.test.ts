import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createTestKeyPair } from '../../../../test/helpers/tokens.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { uuidv7 } from '../../../lib/ids.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const newId = () => `acct-${uuidv7().slice(-12)}`;

describe('happy', () => {
  it('creates, reads and lists a merchant account', async () => {
    const id = newId();
    const created = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id, display_name: 'Acme', over_capture_percentage: 25 },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      type: 'merchant-account',
      id,
      display_name: 'Acme',
      over_capture_percentage: 25,
      account_updater_enabled: false,
      async_network_tokens_enabled: false,
    });
    expect(body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    const got = await t.request({ method: 'GET', url: `/merchant-accounts/${id}` });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);

    const list = await t.request({ method: 'GET', url: `/merchant-accounts?search=${id}` });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ items: [body], limit: 20, next_cursor: null, previous_cursor: null });
  });

  it('masks secrets it holds', async () => {
    const id = newId();
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: {
        id,
        display_name: 'Masked',
        loon_client_key: 'client',
        loon_secret_key: 'super-secret-value-1234',
        loon_accepted_schemes: ['visa'],
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().loon_secret_key).toBe('*******************1234'.slice(-20));
    expect(res.body).not.toContain('super-secret-value');
  });

  it('drops unknown body fields', async () => {
    const id = newId();
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id, display_name: 'X', colour: 'blue' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).not.toHaveProperty('colour');
  });
});

describe('update', () => {
  it('updates only the fields it is sent and records an audit entry', async () => {
    const id = newId();
    await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { id, display_name: 'Before', over_capture_amount: 500, visa_network_tokens_app_id: 'app-1' },
    });
    const res = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { display_name: 'After', visa_network_tokens_app_id: null },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      display_name: 'After',
      over_capture_amount: 500,
      visa_network_tokens_app_id: null,
      account_updater_enabled: false,
    });
    expect(Date.parse(res.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(res.json().created_at));
    const audit = await t.request({ method: 'GET', url: '/audit-logs', merchantAccountId: id });
    expect(audit.json().items.map((e: { action: string }) => e.action)).toEqual(['updated', 'created']);
    expect(audit.json().items[0]).toMatchObject({
      resource: { type: 'merchant-account', id, name: 'After' },
      user: { type: 'user', id: t.keys.id, is_staff: false },
    });
  });

  it('keeps display_name when it is sent as null', async () => {
    const id = newId();
    await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'Kept' } });
    const res = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { display_name: null, over_capture_percentage: 10 },
    });
    expect(res.json()).toMatchObject({ display_name: 'Kept', over_capture_percentage: 10 });
  });

  it('requires the three loon fields together', async () => {
    const id = newId();
    await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'L' } });
    const partial = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { loon_client_key: 'c' },
    });
    expect(partial.statusCode).toBe(400);
    expect(partial.json().details.map((d: { pointer: string }) => d.pointer)).toEqual([
      '/loon_secret_key',
      '/loon_accepted_schemes',
    ]);
    const full = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { loon_client_key: 'c', loon_secret_key: 'secret-1234', loon_accepted_schemes: ['visa'] },
    });
    expect(full.statusCode).toBe(200);
    const cleared = await t.request({
      method: 'PUT',
      url: `/merchant-accounts/${id}`,
      payload: { loon_client_key: null, loon_secret_key: null, loon_accepted_schemes: null },
    });
    expect(cleared.json()).toMatchObject({ loon_client_key: null, loon_secret_key: null, loon_accepted_schemes: null });
  });

  it('answers 404 for an unknown account', async () => {
    const res = await t.request({ method: 'PUT', url: '/merchant-accounts/nope-404', payload: { display_name: 'x' } });
    expect(res.statusCode).toBe(404);
  });
});

describe('errors', () => {
  it('answers 409 with resource_id for a duplicate id', async () => {
    const id = newId();
    await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'One' } });
    const res = await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'Two' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'duplicate_record',
      status: 409,
      message: `A merchant account with the id ${id} already exists`,
      details: [],
      resource_id: id,
    });
  });

  it('answers 422 naming each bad field', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/merchant-accounts',
      payload: { display_name: 7, over_capture_amount: -1 },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual(
      expect.arrayContaining([
        { loc: ['body', 'id'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'display_name'], msg: 'Input should be a valid string', type: 'string_type' },
        {
          loc: ['body', 'over_capture_amount'],
          msg: 'Input should be greater than or equal to 0',
          type: 'greater_than_equal',
        },
      ]),
    );
  });

  it('answers 404 for an unknown account', async () => {
    const res = await t.request({ method: 'GET', url: '/merchant-accounts/nope-404' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('security', () => {
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/merchant-accounts' }),
      scope: 'merchant-accounts.read',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/merchant-accounts/default' }),
      scope: 'merchant-accounts.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'PUT', url: '/merchant-accounts/default', payload: { display_name: 'Default' } }),
      scope: 'merchant-accounts.write',
    }));
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/merchant-accounts', payload: { id: newId(), display_name: 'S' } }),
      scope: 'merchant-accounts.write',
    }));

  it('a key pair limited to one merchant account sees only that account', async () => {
    const mine = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const limited = await createTestKeyPair(t.deps, mine);
    const token = await limited.token();
    const list = await t.request({ method: 'GET', url: '/merchant-accounts', token });
    expect(list.json().items.map((i: { id: string }) => i.id)).toEqual([mine]);
    expect((await t.request({ method: 'GET', url: `/merchant-accounts/${other}`, token })).statusCode).toBe(404);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/merchant-accounts',
          payload: { id: newId(), display_name: 'no' },
          token,
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (await t.request({ method: 'PUT', url: `/merchant-accounts/${other}`, payload: { display_name: 'no' }, token }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'PUT', url: `/merchant-accounts/${mine}`, payload: { display_name: 'yes' }, token }))
        .statusCode,
    ).toBe(200);
  });
});
