import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { createTestKeyPair } from '../../../../test/helpers/tokens.ts';
import { uuidv7 } from '../../../lib/ids.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const TYPE = 'merchant-account.three-ds-configuration';
const base = (account: string) => `/merchant-accounts/${account}/three-ds-configurations`;

function validBody(overrides: Record<string, unknown> = {}) {
  return {
    merchant_acquirer_bin: '516327',
    merchant_acquirer_id: 'acq-123456',
    merchant_name: 'Acme Shop',
    merchant_country_code: '840',
    merchant_category_code: '5999',
    merchant_url: 'https://shop.example.com',
    scheme: 'visa',
    currency: 'USD',
    metadata: { region: 'us' },
    ...overrides,
  };
}

async function createConfig(account: string, overrides: Record<string, unknown> = {}) {
  const res = await t.request({ method: 'POST', url: base(account), payload: validBody(overrides) });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string } & Record<string, unknown>;
}

async function auditEntries(account: string, resourceId: string) {
  const res = await t.request({
    method: 'GET',
    url: `/audit-logs?resource_type=${TYPE}&limit=100`,
    merchantAccountId: account,
  });
  expect(res.statusCode).toBe(200);
  return (res.json().items as Array<{ action: string; resource: { type: string; id: string; name: string } }>).filter(
    (e) => e.resource.id === resourceId,
  );
}

describe('happy', () => {
  it('creates a configuration and lists it', async () => {
    const account = await createMerchantAccount(t.deps);
    const res = await t.request({ method: 'POST', url: base(account), payload: validBody() });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: TYPE,
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      merchant_account_id: account,
      ...validBody(),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: body.created_at,
    });

    const list = await t.request({ method: 'GET', url: base(account) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ items: [body] });
  });

  it('returns currency null when it is absent, and filters the list by currency', async () => {
    const account = await createMerchantAccount(t.deps);
    const all = await createConfig(account, { currency: undefined });
    expect(all.currency).toBeNull();
    const eur = await createConfig(account, { currency: 'EUR' });
    const usd = await createConfig(account, { currency: 'USD' });

    const list = await t.request({ method: 'GET', url: base(account) });
    expect(list.json().items.map((i: { id: string }) => i.id)).toEqual([usd.id, eur.id, all.id]);
    const filtered = await t.request({ method: 'GET', url: `${base(account)}?currency=EUR` });
    expect(filtered.statusCode).toBe(200);
    expect(filtered.json()).toEqual({ items: [eur] });
    expect((await t.request({ method: 'GET', url: `${base(account)}?currency=JPY` })).json()).toEqual({ items: [] });
  });

  it('updates only the fields sent, and null currency makes it apply to every currency', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await createConfig(account);
    const res = await t.request({
      method: 'PUT',
      url: `${base(account)}/${created.id}`,
      payload: { merchant_name: 'Acme Two', currency: null, metadata: { a: 'b' } },
    });
    expect(res.statusCode).toBe(200);
    const updated = res.json();
    expect(updated).toEqual({
      ...created,
      merchant_name: 'Acme Two',
      currency: null,
      metadata: { a: 'b' },
      updated_at: expect.any(String),
    });
    expect(Date.parse(updated.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at as string));

    const empty = await t.request({ method: 'PUT', url: `${base(account)}/${created.id}`, payload: {} });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ ...updated, updated_at: expect.any(String) });
  });

  it('deletes a configuration: 204 without a body, then 404', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await createConfig(account);
    const res = await t.request({ method: 'DELETE', url: `${base(account)}/${created.id}` });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request({ method: 'DELETE', url: `${base(account)}/${created.id}` })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'PUT', url: `${base(account)}/${created.id}`, payload: { merchant_name: 'x' } }))
        .statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'GET', url: base(account) })).json()).toEqual({ items: [] });
  });

  it('allows the same scheme with another currency, and the same scheme and currency on another account', async () => {
    const account = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    await createConfig(account, { currency: 'USD' });
    await createConfig(account, { currency: 'EUR' });
    await createConfig(account, { currency: null });
    await createConfig(account, { scheme: 'mastercard', currency: 'USD' });
    await createConfig(other, { currency: 'USD' });
  });
});

describe('errors', () => {
  it('answers 422 naming each bad body field', async () => {
    const account = await createMerchantAccount(t.deps);
    const res = await t.request({
      method: 'POST',
      url: base(account),
      payload: validBody({
        merchant_country_code: 'US',
        merchant_category_code: '59999',
        scheme: 'Visa Card',
        currency: 'usd',
        metadata: { k: 7 },
        merchant_name: undefined,
      }),
    });
    expect(res.statusCode).toBe(422);
    const locs = res.json().detail.map((d: { loc: unknown[] }) => d.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'merchant_name'],
        ['body', 'merchant_country_code'],
        ['body', 'merchant_category_code'],
        ['body', 'scheme'],
        ['body', 'currency'],
        ['body', 'metadata', 'k'],
      ]),
    );
    expect(res.json().detail).toContainEqual({
      loc: ['body', 'merchant_country_code'],
      msg: "String should match pattern '^[0-9]{3}$'",
      type: 'string_pattern_mismatch',
    });
  });

  it('answers 422 for an unknown currency, missing metadata and too many metadata keys', async () => {
    const account = await createMerchantAccount(t.deps);
    const unknown = await t.request({ method: 'POST', url: base(account), payload: validBody({ currency: 'XYZ' }) });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().detail[0].loc).toEqual(['body', 'currency']);
    const missing = await t.request({
      method: 'POST',
      url: base(account),
      payload: validBody({ metadata: undefined }),
    });
    expect(missing.json().detail).toEqual([{ loc: ['body', 'metadata'], msg: 'Field required', type: 'missing' }]);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']));
    const tooMany = await t.request({ method: 'POST', url: base(account), payload: validBody({ metadata: many }) });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json().detail[0].loc).toEqual(['body', 'metadata']);
    const longKey = await t.request({
      method: 'POST',
      url: base(account),
      payload: validBody({ metadata: { ['k'.repeat(51)]: 'v' } }),
    });
    expect(longKey.statusCode).toBe(422);
  });

  it('answers 422 for a bad list filter and a configuration id that is not a UUID', async () => {
    const account = await createMerchantAccount(t.deps);
    const list = await t.request({ method: 'GET', url: `${base(account)}?currency=eur` });
    expect(list.statusCode).toBe(422);
    expect(list.json().detail[0].loc).toEqual(['query', 'currency']);
    const put = await t.request({ method: 'PUT', url: `${base(account)}/not-a-uuid`, payload: {} });
    expect(put.statusCode).toBe(422);
    expect(put.json().detail[0].loc).toEqual(['path', 'three_ds_configuration_id']);
  });

  it('answers 400 naming each field an update sets to null, except currency', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await createConfig(account);
    const res = await t.request({
      method: 'PUT',
      url: `${base(account)}/${created.id}`,
      payload: { merchant_name: null, scheme: null, currency: null },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ type: 'error', code: 'bad_request', status: 400 });
    expect(res.json().details).toEqual([
      {
        location: 'body',
        pointer: '/merchant_name',
        message: 'Required on a 3DS configuration; cannot be null',
        type: 'value_error',
      },
      {
        location: 'body',
        pointer: '/scheme',
        message: 'Required on a 3DS configuration; cannot be null',
        type: 'value_error',
      },
    ]);
    const unchanged = await t.request({ method: 'GET', url: base(account) });
    expect(unchanged.json().items[0]).toEqual(created);
  });

  it('answers 409 with the existing id for a second configuration of the same scheme and currency', async () => {
    const account = await createMerchantAccount(t.deps);
    const first = await createConfig(account, { currency: 'EUR' });
    const res = await t.request({
      method: 'POST',
      url: base(account),
      payload: validBody({ currency: 'EUR', merchant_name: 'Other' }),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'duplicate_record',
      status: 409,
      message: 'A 3DS configuration for scheme visa and currency EUR already exists on this merchant account',
      details: [],
      resource_id: first.id,
    });

    const allCurrencies = await createConfig(account, { currency: null });
    const again = await t.request({ method: 'POST', url: base(account), payload: validBody({ currency: null }) });
    expect(again.statusCode).toBe(409);
    expect(again.json().resource_id).toBe(allCurrencies.id);
  });

  it('answers 409 when an update would take the scheme and currency of another configuration', async () => {
    const account = await createMerchantAccount(t.deps);
    const eur = await createConfig(account, { currency: 'EUR' });
    const usd = await createConfig(account, { currency: 'USD' });
    const res = await t.request({ method: 'PUT', url: `${base(account)}/${usd.id}`, payload: { currency: 'EUR' } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'duplicate_record', resource_id: eur.id });
    // Sending its own scheme and currency again is not a conflict.
    const same = await t.request({
      method: 'PUT',
      url: `${base(account)}/${usd.id}`,
      payload: { scheme: 'visa', currency: 'USD' },
    });
    expect(same.statusCode).toBe(200);
  });

  it('answers one success and one 409 to concurrent writes of the same scheme and currency', async () => {
    const account = await createMerchantAccount(t.deps);
    const creates = await Promise.all(
      [0, 1].map(() => t.request({ method: 'POST', url: base(account), payload: validBody({ currency: 'CHF' }) })),
    );
    expect(creates.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const winner = creates.find((r) => r.statusCode === 201)!.json();
    expect(creates.find((r) => r.statusCode === 409)!.json().resource_id).toBe(winner.id);

    const a = await createConfig(account, { currency: 'SEK' });
    const b = await createConfig(account, { currency: 'NOK' });
    const moves = await Promise.all(
      [a, b].map((c) => t.request({ method: 'PUT', url: `${base(account)}/${c.id}`, payload: { currency: 'DKK' } })),
    );
    expect(moves.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const moved = moves.find((r) => r.statusCode === 200)!.json();
    expect(moves.find((r) => r.statusCode === 409)!.json()).toMatchObject({
      code: 'duplicate_record',
      resource_id: moved.id,
    });
  });

  it('replays a create sent again with the same idempotency-key', async () => {
    const account = await createMerchantAccount(t.deps);
    const headers = { 'idempotency-key': uuidv7() };
    const first = await t.request({ method: 'POST', url: base(account), payload: validBody(), headers });
    const second = await t.request({ method: 'POST', url: base(account), payload: validBody(), headers });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
  });

  it('answers 404 for an unknown merchant account', async () => {
    const missing = `nope-${uuidv7().slice(-12)}`;
    for (const req of [
      { method: 'POST' as const, url: base(missing), payload: validBody() },
      { method: 'GET' as const, url: base(missing) },
      { method: 'PUT' as const, url: `${base(missing)}/${uuidv7()}`, payload: { merchant_name: 'x' } },
      { method: 'DELETE' as const, url: `${base(missing)}/${uuidv7()}` },
    ]) {
      const res = await t.request(req);
      expect(res.statusCode, `${req.method}`).toBe(404);
      expect(res.json()).toMatchObject({
        type: 'error',
        code: 'not_found',
        status: 404,
        message: `The merchant account ${missing} could not be found`,
      });
    }
  });

  it('answers 404 for an unknown configuration id, and for one of another account', async () => {
    const account = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const theirs = await createConfig(other);
    for (const id of [uuidv7(), theirs.id]) {
      const put = await t.request({ method: 'PUT', url: `${base(account)}/${id}`, payload: { merchant_name: 'x' } });
      expect(put.statusCode).toBe(404);
      expect(put.json()).toMatchObject({
        code: 'not_found',
        message: `The 3DS configuration ${id} could not be found`,
      });
      expect((await t.request({ method: 'DELETE', url: `${base(account)}/${id}` })).statusCode).toBe(404);
    }
    const list = await t.request({ method: 'GET', url: base(other) });
    expect(list.json().items).toEqual([theirs]);
  });
});

describe('security', () => {
  const existing = async () => {
    const account = await createMerchantAccount(t.deps);
    return { account, config: await createConfig(account) };
  };
  describe('create', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'POST', url: base(await createMerchantAccount(t.deps)), payload: validBody() }),
      scope: 'merchant-accounts.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: base('default') }),
      scope: 'merchant-accounts.read',
    }));
  describe('edit', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { account, config } = await existing();
        return { method: 'PUT', url: `${base(account)}/${config.id}`, payload: { merchant_name: 'x' } };
      },
      scope: 'merchant-accounts.write',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { account, config } = await existing();
        return { method: 'DELETE', url: `${base(account)}/${config.id}` };
      },
      scope: 'merchant-accounts.write',
    }));

  it('a key pair limited to another merchant account gets 404 on this account, and works on its own', async () => {
    const { account, config } = await existing();
    const otherAccount = await createMerchantAccount(t.deps);
    const token = await (await createTestKeyPair(t.deps, otherAccount)).token();
    const denied = [
      await t.request({ method: 'GET', url: base(account), token }),
      await t.request({ method: 'POST', url: base(account), payload: validBody({ currency: 'GBP' }), token }),
      await t.request({
        method: 'PUT',
        url: `${base(account)}/${config.id}`,
        payload: { merchant_name: 'stolen' },
        token,
      }),
      await t.request({ method: 'DELETE', url: `${base(account)}/${config.id}`, token }),
    ];
    for (const res of denied) {
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({
        code: 'not_found',
        message: `The merchant account ${account} could not be found`,
      });
    }
    expect((await t.request({ method: 'GET', url: base(account) })).json()).toEqual({ items: [config] });

    const own = await t.request({ method: 'POST', url: base(otherAccount), payload: validBody(), token });
    expect(own.statusCode).toBe(201);
    expect((await t.request({ method: 'GET', url: base(otherAccount), token })).json().items).toHaveLength(1);
  });

  it('records an audit entry for each create, update and delete', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await createConfig(account, { merchant_name: 'Audited' });
    await t.request({
      method: 'PUT',
      url: `${base(account)}/${created.id}`,
      payload: { merchant_name: 'Audited Two' },
    });
    await t.request({ method: 'DELETE', url: `${base(account)}/${created.id}` });
    const entries = await auditEntries(account, created.id);
    expect(entries.map((e) => [e.action, e.resource])).toEqual([
      ['deleted', { type: TYPE, id: created.id, name: 'Audited Two' }],
      ['updated', { type: TYPE, id: created.id, name: 'Audited Two' }],
      ['created', { type: TYPE, id: created.id, name: 'Audited' }],
    ]);
    const rows = await t.deps.db
      .selectFrom('audit_logs')
      .select(['operation_id', 'user_id'])
      .where('merchant_account_id', '=', account)
      .where('resource_id', '=', created.id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.operation_id)).toEqual([
      'createThreeDsConfiguration',
      'editThreeDsConfiguration',
      'deleteThreeDsConfiguration',
    ]);
    expect(rows.every((r) => r.user_id === t.keys.id)).toBe(true);
  });

  it('writes no audit entry when a change is refused', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await createConfig(account, { currency: 'EUR' });
    expect(
      (await t.request({ method: 'POST', url: base(account), payload: validBody({ currency: 'EUR' }) })).statusCode,
    ).toBe(409);
    expect(
      (await t.request({ method: 'PUT', url: `${base(account)}/${created.id}`, payload: { scheme: null } })).statusCode,
    ).toBe(400);
    expect((await auditEntries(account, created.id)).map((e) => e.action)).toEqual(['created']);
    const all = await t.deps.db
      .selectFrom('audit_logs')
      .select('id')
      .where('merchant_account_id', '=', account)
      .execute();
    expect(all).toHaveLength(1);
  });
});
