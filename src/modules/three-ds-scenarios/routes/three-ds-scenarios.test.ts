import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { SANDBOX_ONLY_MESSAGE } from '../three-ds-scenarios.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const FRICTIONLESS = { version: '2.2.0', authentication: { transaction_status: 'Y' } };
const CHALLENGE = {
  version: '2.2.0',
  authentication: { transaction_status: 'C' },
  result: { transaction_status: 'N' },
};
const NO_CONDITIONS = {
  first_name: null,
  last_name: null,
  email_address: null,
  amount: null,
  external_identifier: null,
  card_number: null,
};

const create = (payload: object, app: TestApp = t, merchantAccountId?: string) =>
  app.request({
    method: 'POST',
    url: '/three-ds-scenarios',
    payload,
    ...(merchantAccountId ? { merchantAccountId } : {}),
  });
const update = (id: string, payload: object) => t.request({ method: 'PUT', url: `/three-ds-scenarios/${id}`, payload });
const list = (query = '', merchantAccountId?: string) =>
  t.request({ method: 'GET', url: `/three-ds-scenarios${query}`, ...(merchantAccountId ? { merchantAccountId } : {}) });

describe('happy', () => {
  it('creates a scenario: 201, every condition present, the card number masked', async () => {
    const res = await create({
      conditions: { amount: 1299, card_number: VISA, email_address: 'Ada@Example.com' },
      outcome: FRICTIONLESS,
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: 'three-d-secure-scenario',
      id: expect.any(String),
      merchant_account_id: 'default',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      conditions: { ...NO_CONDITIONS, amount: 1299, card_number: '411111******1111', email_address: 'Ada@Example.com' },
      outcome: { ...FRICTIONLESS, result: null },
    });
    expect(res.body).not.toContain(VISA);
  });

  it('stores only the fingerprint and the mask of the card number', async () => {
    const { id } = (await create({ conditions: { card_number: VISA }, outcome: FRICTIONLESS })).json();
    const row = await sql<{
      text: string;
    }>`SELECT row_to_json(s)::text AS text FROM three_ds_scenarios s WHERE id = ${id}`.execute(t.deps.db);
    expect(row.rows[0]!.text).not.toContain(VISA);
    expect(row.rows[0]!.text).toContain('411111******1111');
  });

  it('lists scenarios of the account newest first, with cursors', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const ids: string[] = [];
    for (const amount of [1, 2, 3])
      ids.push((await create({ conditions: { amount }, outcome: CHALLENGE }, t, merchant)).json().id);
    const first = await list('?limit=2', merchant);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ limit: 2, previous_cursor: null, next_cursor: expect.any(String) });
    expect(first.json().items.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    const second = (await list(`?limit=2&cursor=${encodeURIComponent(first.json().next_cursor)}`, merchant)).json();
    expect(second.items.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect(second.next_cursor).toBeNull();
    expect((await list('', merchant)).json().limit).toBe(20);
  });

  it('updates partially: conditions and outcome each replace the stored value when sent', async () => {
    const { id } = (await create({ conditions: { amount: 500, first_name: 'Ada' }, outcome: FRICTIONLESS })).json();
    const conditions = await update(id, { conditions: { card_number: '5555555555554444' } });
    expect(conditions.statusCode, conditions.body).toBe(200);
    expect(conditions.json()).toMatchObject({
      conditions: { ...NO_CONDITIONS, card_number: '555555******4444' },
      outcome: { ...FRICTIONLESS, result: null },
    });
    const outcome = (await update(id, { outcome: CHALLENGE })).json();
    expect(outcome).toMatchObject({
      conditions: { ...NO_CONDITIONS, card_number: '555555******4444' },
      outcome: CHALLENGE,
    });
    expect((await update(id, {})).json().outcome).toEqual(CHALLENGE);
  });

  it("takes an outcome without a version (or null): the sandbox 3DS server's 2.2.0, which a matched transaction is authenticated with", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { three_d_secure_enabled: true });
    const omitted = await create(
      { conditions: { amount: 1811 }, outcome: { authentication: { transaction_status: 'Y' } } },
      t,
      m,
    );
    expect(omitted.statusCode, omitted.body).toBe(201);
    expect(omitted.json().outcome).toEqual({
      version: '2.2.0',
      authentication: { transaction_status: 'Y' },
      result: null,
    });
    const nulled = await create(
      { conditions: { amount: 1812 }, outcome: { version: null, authentication: { transaction_status: 'Y' } } },
      t,
      m,
    );
    expect(nulled.statusCode, nulled.body).toBe(201);
    expect(nulled.json().outcome.version).toBe('2.2.0');
    // An outcome sent to update replaces the stored one whole, the version included.
    const own = await create(
      { conditions: { amount: 1813 }, outcome: { version: '2.1.0', authentication: { transaction_status: 'Y' } } },
      t,
      m,
    );
    const replaced = await t.request({
      method: 'PUT',
      url: `/three-ds-scenarios/${own.json().id}`,
      merchantAccountId: m,
      payload: { outcome: { authentication: { transaction_status: 'A' } } },
    });
    expect(replaced.statusCode, replaced.body).toBe(200);
    expect(replaced.json().outcome).toEqual({
      version: '2.2.0',
      authentication: { transaction_status: 'A' },
      result: null,
    });
    const paid = await createTransaction(t, m, { amount: 1811 });
    expect(paid.statusCode, paid.body).toBe(201);
    expect(paid.json()).toMatchObject({
      status: 'authorization_succeeded',
      three_d_secure: { version: '2.2.0', status: 'complete', method: 'frictionless' },
    });
  });

  it('deletes a scenario: 204, then 404', async () => {
    const { id } = (await create({ conditions: { amount: 7 }, outcome: FRICTIONLESS })).json();
    const res = await t.request({ method: 'DELETE', url: `/three-ds-scenarios/${id}` });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request({ method: 'DELETE', url: `/three-ds-scenarios/${id}` })).statusCode).toBe(404);
  });
});

describe('errors', () => {
  it('requires outcome.result when the authentication status is C', async () => {
    const res = await create({
      conditions: { amount: 1 },
      outcome: { version: '2.2.0', authentication: { transaction_status: 'C' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      details: [{ location: 'body', pointer: '/outcome/result' }],
    });
    const { id } = (await create({ conditions: { amount: 1 }, outcome: FRICTIONLESS })).json();
    expect((await update(id, { outcome: { ...CHALLENGE, result: null } })).json()).toMatchObject({
      status: 400,
      details: [{ pointer: '/outcome/result' }],
    });
  });

  it('requires at least one condition', async () => {
    for (const conditions of [{}, NO_CONDITIONS]) {
      const res = await create({ conditions, outcome: FRICTIONLESS });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        details: [{ pointer: '/conditions', type: 'conditions_empty' }],
      });
    }
    const { id } = (await create({ conditions: { amount: 1 }, outcome: FRICTIONLESS })).json();
    expect((await update(id, { conditions: {} })).statusCode).toBe(400);
    expect((await update(id, { conditions: null })).json()).toMatchObject({
      status: 400,
      details: [{ pointer: '/conditions' }],
    });
  });

  it('validates the card number with a 400 that never repeats it', async () => {
    for (const number of ['4111111111111112', '41111111', '4111 1111 1111 1111']) {
      const res = await create({ conditions: { card_number: number }, outcome: FRICTIONLESS });
      expect(res.statusCode, number).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        details: [{ pointer: '/conditions/card_number', type: expect.stringMatching(/^card_number_/) }],
      });
      expect(res.body).not.toContain(number);
    }
    expect(t.logs.join('\n')).not.toContain('4111111111111112');
  });

  it('validates the body shape (422) and answers 404 for an unknown scenario', async () => {
    expect(
      (
        await create({
          conditions: { amount: 1 },
          outcome: { version: '2.2.0', authentication: { transaction_status: 'X' } },
        })
      ).statusCode,
    ).toBe(422);
    expect((await create({ outcome: FRICTIONLESS })).statusCode).toBe(422);
    expect((await list('?limit=101')).statusCode).toBe(422);
    expect((await update(UNKNOWN, { outcome: FRICTIONLESS })).statusCode).toBe(404);
  });
});

describe('security', () => {
  const body = { conditions: { amount: 1 }, outcome: FRICTIONLESS };
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/three-ds-scenarios', payload: body }),
      scope: 'three-ds-scenarios.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/three-ds-scenarios' }),
      scope: 'three-ds-scenarios.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'PUT', url: `/three-ds-scenarios/${UNKNOWN}`, payload: body }),
      scope: 'three-ds-scenarios.write',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'DELETE', url: `/three-ds-scenarios/${UNKNOWN}` }),
      scope: 'three-ds-scenarios.write',
    }));

  it("answers 404 for another merchant account's scenario and lists only the account's own", async () => {
    const mine = await createMerchantAccount(t.deps);
    const { id } = (await create(body, t, mine)).json();
    expect((await update(id, { outcome: CHALLENGE })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/three-ds-scenarios/${id}` })).statusCode).toBe(404);
    expect((await list('?limit=100')).json().items.map((s: { id: string }) => s.id)).not.toContain(id);
    expect((await list('', mine)).json().items.map((s: { id: string }) => s.id)).toEqual([id]);
  });

  it('answers every operation 403 in production, before validating the body', async () => {
    const app = await buildTestApp({ ENVIRONMENT: 'production', VAULT_MASTER_KEY: randomBytes(32).toString('base64') });
    try {
      const requests = [
        { method: 'POST' as const, url: '/three-ds-scenarios', payload: body },
        { method: 'POST' as const, url: '/three-ds-scenarios', payload: { nonsense: true } },
        { method: 'GET' as const, url: '/three-ds-scenarios' },
        { method: 'PUT' as const, url: `/three-ds-scenarios/${UNKNOWN}`, payload: body },
        { method: 'DELETE' as const, url: '/three-ds-scenarios/not-a-uuid' },
      ];
      for (const request of requests) {
        const res = await app.request(request);
        expect(res.statusCode, `${request.method} ${request.url}`).toBe(403);
        expect(res.json()).toEqual({
          type: 'error',
          code: 'forbidden',
          status: 403,
          message: SANDBOX_ONLY_MESSAGE,
          details: [],
        });
      }
      expect((await app.request({ method: 'GET', url: '/three-ds-scenarios', token: null })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });
});
