import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { detectScheme, luhnValid } from '../../../lib/card-schemes.ts';
import { scrub, scrubString } from '../../../lib/redact.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const AMEX = '378282246310005';
const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const CREATE = { merchant_initiated: false, is_subsequent_payment: false };

type Options = { merchantAccountId?: string };
const as = (o: Options) => (o.merchantAccountId ? { merchantAccountId: o.merchantAccountId } : {});

async function storeCard(app: TestApp, number = VISA, o: Options = {}, expiration_date = '12/39'): Promise<string> {
  const res = await app.request({
    method: 'POST',
    url: '/payment-methods',
    payload: { method: 'card', number, expiration_date },
    ...as(o),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}
const base = (pm: string) => `/payment-methods/${pm}/network-tokens`;
const provision = (app: TestApp, pm: string, payload: object = CREATE, o: Options = {}) =>
  app.request({ method: 'POST', url: base(pm), payload, ...as(o) });
const post = (pm: string, id: string, action: string, payload?: object) =>
  t.request({ method: 'POST', url: `${base(pm)}/${id}/${action}`, ...(payload ? { payload } : {}) });

async function tokenFor(number = VISA, o: Options = {}) {
  const pm = await storeCard(t, number, o);
  const res = await provision(t, pm, CREATE, o);
  expect(res.statusCode, res.body).toBe(201);
  return { pm, token: res.json() };
}

describe('happy', () => {
  it('provisions a token: Luhn-valid, of the same scheme and length, not the card number', async () => {
    for (const number of [VISA, MASTERCARD, AMEX]) {
      const { pm, token } = await tokenFor(number);
      expect(token).toMatchObject({
        type: 'network-token',
        payment_method_id: pm,
        status: 'active',
        expiration_date: '12/39',
      });
      expect(Object.keys(token).sort()).toEqual([
        'created_at',
        'expiration_date',
        'id',
        'payment_method_id',
        'status',
        'token',
        'type',
        'updated_at',
      ]);
      expect(token.token).not.toBe(number);
      expect(token.token).toHaveLength(number.length);
      expect(luhnValid(token.token)).toBe(true);
      expect(detectScheme(token.token)).toBe(detectScheme(number));
    }
  });

  it('accepts a security code and keeps no trace of it', async () => {
    const pm = await storeCard(t);
    const res = await provision(t, pm, {
      ...CREATE,
      security_code: '8642',
      merchant_initiated: true,
      is_subsequent_payment: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    expect([...t.logs, ...audit.rows.map((r) => r.text)].join('\n')).not.toContain('"8642"');
  });

  it('stores the token encrypted, and lists it with its value', async () => {
    const { pm, token } = await tokenFor();
    const row = await t.deps.db
      .selectFrom('network_tokens')
      .selectAll()
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(row.token_ciphertext).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(token.token);
    expect(row.token_last4).toBe(token.token.slice(-4));
    const list = await t.request({ method: 'GET', url: base(pm) });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ items: [token] });
  });

  it('goes active ⇄ suspended → deleted, destroying the value, with audit entries', async () => {
    const { pm, token } = await tokenFor();
    const suspended = await post(pm, token.id, 'suspend');
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect(suspended.json()).toMatchObject({ id: token.id, status: 'suspended', token: token.token });
    const resumed = await post(pm, token.id, 'resume');
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.json()).toMatchObject({ status: 'active', token: token.token });
    expect((await post(pm, token.id, 'suspend')).statusCode).toBe(200);
    const deleted = await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}` });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    const row = await t.deps.db
      .selectFrom('network_tokens')
      .selectAll()
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect([row.status, row.token_ciphertext, row.token_key_id]).toEqual(['deleted', null, null]);
    const listed = (await t.request({ method: 'GET', url: base(pm) })).json();
    expect(listed.items).toEqual([
      expect.objectContaining({ id: token.id, status: 'deleted', token: `****${token.token.slice(-4)}` }),
    ]);
    const audit = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'operation_id'])
      .where('resource_id', '=', token.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audit.map((a) => `${a.action}:${a.operation_id}`)).toEqual([
      'created:createPaymentMethodNetworkToken',
      'updated:suspendPaymentMethodNetworkToken',
      'updated:resumePaymentMethodNetworkToken',
      'updated:suspendPaymentMethodNetworkToken',
      'deleted:deletePaymentMethodNetworkToken',
    ]);
    // After a deletion a new token may be provisioned.
    const again = await provision(t, pm);
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().token).not.toBe(token.token);
  });

  it('issues a fresh 28-character cryptogram per transaction for an active token', async () => {
    const { pm, token } = await tokenFor(MASTERCARD);
    const first = await post(pm, token.id, 'cryptogram', { merchant_initiated: false });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toEqual({
      type: 'network-token-cryptogram',
      cryptogram: expect.stringMatching(/^[A-Za-z0-9+/]{27}=$/),
    });
    const second = await post(pm, token.id, 'cryptogram', { merchant_initiated: true });
    expect(second.json().cryptogram).not.toBe(first.json().cryptogram);
  });

  it('goes away with its payment method', async () => {
    const { pm, token } = await tokenFor();
    expect((await t.request({ method: 'DELETE', url: `/payment-methods/${pm}` })).statusCode).toBe(204);
    expect(await t.deps.db.selectFrom('network_tokens').selectAll().where('id', '=', token.id).execute()).toEqual([]);
  });
});

describe('errors', () => {
  it('answers 409 with the live token id on a second provisioning', async () => {
    const { pm, token } = await tokenFor();
    const second = await provision(t, pm);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'duplicate_record', resource_id: token.id });
    expect(second.body).not.toContain(token.token);
    expect((await post(pm, token.id, 'suspend')).statusCode).toBe(200);
    expect((await provision(t, pm)).statusCode).toBe(409);
  });

  it('refuses a cryptogram for a suspended or deleted token', async () => {
    const { pm, token } = await tokenFor();
    await post(pm, token.id, 'suspend');
    const suspended = await post(pm, token.id, 'cryptogram', { merchant_initiated: false });
    expect(suspended.statusCode).toBe(400);
    expect(suspended.json()).toMatchObject({
      code: 'bad_request',
      message: 'The network token is suspended: a cryptogram can only be provisioned for an active token',
    });
    await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}` });
    const deleted = await post(pm, token.id, 'cryptogram', { merchant_initiated: false });
    expect(deleted.statusCode).toBe(400);
    expect(deleted.json().message).toMatch(/is deleted/);
  });

  it('refuses illegal transitions with 400 naming the states', async () => {
    const { pm, token } = await tokenFor();
    const resume = await post(pm, token.id, 'resume');
    expect(resume.statusCode).toBe(400);
    expect(resume.json().message).toBe('The network token is active: it cannot become active');
    await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}` });
    expect((await post(pm, token.id, 'suspend')).json().message).toBe(
      'The network token is deleted: it cannot become suspended',
    );
    const again = await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}` });
    expect([again.statusCode, again.json().message]).toEqual([
      400,
      'The network token is deleted: it cannot become deleted',
    ]);
  });

  it('validates the bodies', async () => {
    const pm = await storeCard(t);
    for (const payload of [
      { merchant_initiated: false },
      { ...CREATE, security_code: '12' },
      { ...CREATE, security_code: '12a4' },
      { ...CREATE, security_code: '12345' },
      { ...CREATE, is_subsequent_payment: 'maybe' },
    ]) {
      expect((await provision(t, pm, payload)).statusCode).toBe(422);
    }
    const { pm: other, token } = await tokenFor();
    expect((await post(other, token.id, 'cryptogram', {})).statusCode).toBe(422);
  });

  it('answers 404 for an unknown payment method or token, and a token under another payment method', async () => {
    expect((await provision(t, UNKNOWN)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: base(UNKNOWN) })).statusCode).toBe(404);
    const { pm, token } = await tokenFor();
    const otherPm = await storeCard(t);
    expect((await post(pm, UNKNOWN, 'suspend')).statusCode).toBe(404);
    expect((await post(otherPm, token.id, 'suspend')).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `${base(otherPm)}/${token.id}` })).statusCode).toBe(404);
  });

  it('refuses schemes the token service does not support', async () => {
    const pm = await storeCard(t, '3530111333300000');
    const res = await provision(t, pm);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ type: 'network_token_unsupported_scheme' });
  });
});

describe('security', () => {
  const fresh = async () => tokenFor();
  describe('create', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'POST', url: base(await storeCard(t)), payload: CREATE }),
      scope: 'payment-methods.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, { request: () => ({ method: 'GET', url: base(UNKNOWN) }), scope: 'payment-methods.read' }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { pm, token } = await fresh();
        return { method: 'DELETE', url: `${base(pm)}/${token.id}` };
      },
      scope: 'payment-methods.write',
    }));
  describe('suspend', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { pm, token } = await fresh();
        return { method: 'POST', url: `${base(pm)}/${token.id}/suspend` };
      },
      scope: 'payment-methods.write',
    }));
  describe('resume', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { pm, token } = await fresh();
        return { method: 'POST', url: `${base(pm)}/${token.id}/resume` };
      },
      scope: 'payment-methods.write',
    }));
  describe('cryptogram', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { pm, token } = await fresh();
        return { method: 'POST', url: `${base(pm)}/${token.id}/cryptogram`, payload: { merchant_initiated: false } };
      },
      scope: 'payment-methods.write',
    }));

  it("answers 404 for another merchant account's payment method and tokens", async () => {
    const mine = await createMerchantAccount(t.deps);
    const { pm, token } = await tokenFor(VISA, { merchantAccountId: mine });
    expect((await provision(t, pm)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: base(pm) })).statusCode).toBe(404);
    for (const action of ['suspend', 'resume']) expect((await post(pm, token.id, action)).statusCode).toBe(404);
    expect((await post(pm, token.id, 'cryptogram', { merchant_initiated: false })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}` })).statusCode).toBe(404);
    const list = (await t.request({ method: 'GET', url: base(pm), merchantAccountId: mine })).json();
    expect(list.items).toEqual([expect.objectContaining({ id: token.id, status: 'active', token: token.token })]);
  });

  it('keeps token values out of logs, audit entries and jobs; the log scrubber masks them', async () => {
    const { pm, token } = await tokenFor();
    await post(pm, token.id, 'suspend');
    await post(pm, token.id, 'resume');
    expect(scrubString(`provisioned ${token.token} for card`)).not.toContain(token.token);
    expect(JSON.stringify(scrub({ token: token.token, note: `value=${token.token}` }))).not.toContain(token.token);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const jobs = await sql<{ text: string }>`SELECT row_to_json(j)::text AS text FROM jobs j`.execute(t.deps.db);
    const everything = [...t.logs, ...audit.rows.map((r) => r.text), ...jobs.rows.map((r) => r.text)].join('\n');
    expect(everything).not.toContain(token.token);
  });

  it('replays create, suspend and resume byte for byte, keeping token values sealed in the idempotency store', async () => {
    const pm = await storeCard(t);
    const once = async (url: string, payload?: object) => {
      const send = () =>
        t.request({
          method: 'POST',
          url,
          ...(payload ? { payload } : {}),
          headers: { 'idempotency-key': `nt-${url}` },
        });
      const first = await send();
      const again = await send();
      expect(first.statusCode, first.body).toBeLessThan(300);
      expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([
        first.statusCode,
        'true',
        first.body,
      ]);
      return first.json();
    };
    const token = await once(base(pm), CREATE);
    expect((await once(`${base(pm)}/${token.id}/suspend`)).status).toBe('suspended');
    expect((await once(`${base(pm)}/${token.id}/resume`)).status).toBe('active');
    const stored = await sql<{ text: string }>`SELECT row_to_json(k)::text AS text FROM idempotency_keys k`.execute(
      t.deps.db,
    );
    expect(stored.rows.map((r) => r.text).join('\n')).not.toContain(token.token);
  });
});

describe('production switch', () => {
  const production = { ENVIRONMENT: 'production', VAULT_MASTER_KEY: randomBytes(32).toString('base64') };

  it('refuses provisioning through the API in production by default, but still lists', async () => {
    const app = await buildTestApp(production);
    try {
      const pm = await storeCard(app);
      const res = await provision(app, pm);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        code: 'forbidden',
        message: expect.stringContaining('NETWORK_TOKENS_API_PROVISIONING'),
      });
      expect((await app.request({ method: 'GET', url: base(pm) })).json()).toEqual({ items: [] });
    } finally {
      await app.close();
    }
  });

  it('refuses provisioning in production even with NETWORK_TOKENS_API_PROVISIONING=true: the token service is simulated', async () => {
    const app = await buildTestApp({ ...production, NETWORK_TOKENS_API_PROVISIONING: 'true' });
    try {
      const pm = await storeCard(app, MASTERCARD);
      const res = await provision(app, pm);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual({
        type: 'error',
        code: 'forbidden',
        status: 403,
        details: [],
        message:
          "The network token service: a sandbox simulation, not available in production; no network token service is configured: tokens from a provider that offers network tokenization (Stripe's or Adyen's) are not integrated yet",
      });
      expect((await app.request({ method: 'GET', url: base(pm) })).json()).toEqual({ items: [] });
    } finally {
      await app.close();
    }
  });
});
