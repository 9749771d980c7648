import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { ConnectorError, type TokenizeRequest } from '../../../connectors/connector.ts';
import { RECURRING } from '../../../jobs/index.ts';
import { reconcileDueTokens } from '../reconcile-tokens.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

const VISA = '4111111111111111';
const DECLINED = '4000000000000002';
const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const REDIRECT = 'https://shop.example/return';

async function createService(m: string, extra: Record<string, unknown> = {}): Promise<string> {
  const payload = {
    display_name: 'Tokenizing mock',
    payment_service_definition_id: 'mock-card',
    fields: [{ key: 'merchant_id', value: 'm-1' }],
    accepted_currencies: ['USD'],
    accepted_countries: ['US'],
    payment_method_tokenization_enabled: true,
    ...extra,
  };
  const res = await t.request({ method: 'POST', url: '/payment-services', merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

async function storeCard(m: string, number = VISA): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number, expiration_date: '12/39' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

/** A merchant account with a tokenizing service and a stored card. */
async function setup(number = VISA) {
  const m = await createMerchantAccount(t.deps);
  return { m, service: await createService(m), pm: await storeCard(m, number) };
}

const base = (pm: string) => `/payment-methods/${pm}/payment-service-tokens`;
const create = (m: string, pm: string, payload: object, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: base(pm), merchantAccountId: m, payload, headers });
const list = (m: string, pm: string, query = '') =>
  t.request({ method: 'GET', url: `${base(pm)}${query}`, merchantAccountId: m });
const mockConnector = () => t.deps.connectors.get('mock-card') as { tokenize(r: TokenizeRequest): Promise<unknown> };

describe('happy', () => {
  it('creates a token at the service, stores it encrypted, and lists it', async () => {
    const { m, service, pm } = await setup();
    const res = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT });
    expect(res.statusCode, res.body).toBe(201);
    const token = res.json();
    expect(token).toMatchObject({
      type: 'payment-service-token',
      payment_method_id: pm,
      payment_service_id: service,
      status: 'succeeded',
      approval_url: null,
      token: expect.stringMatching(/^mock_tok_/),
    });
    expect(Object.keys(token).sort()).toEqual([
      'approval_url',
      'created_at',
      'id',
      'payment_method_id',
      'payment_service_id',
      'status',
      'token',
      'type',
      'updated_at',
    ]);
    const row = await t.deps.db
      .selectFrom('payment_service_tokens')
      .selectAll()
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(row.token_ciphertext).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(token.token);
    expect((await list(m, pm)).json()).toEqual({ items: [token] });
    const audit = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'operation_id'])
      .where('resource_id', '=', token.id)
      .execute();
    expect(audit).toEqual([{ action: 'created', operation_id: 'createPaymentMethodPaymentServiceToken' }]);
  });

  it('passes the card, security code and redirect url to the connector, outside a transaction', async () => {
    const { m, service, pm } = await setup();
    const connector = mockConnector();
    const original = connector.tokenize.bind(connector);
    let seen: string | undefined;
    // The `processing` row is committed before the call: another connection sees it.
    const spy = vi.spyOn(connector, 'tokenize').mockImplementationOnce(async (request) => {
      seen = (
        await t.deps.db
          .selectFrom('payment_service_tokens')
          .select('status')
          .where('id', '=', request.idempotencyKey)
          .executeTakeFirst()
      )?.status;
      return original(request);
    });
    const res = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT, security_code: '8642' });
    expect(res.statusCode, res.body).toBe(201);
    expect(seen).toBe('processing');
    expect(spy).toHaveBeenCalledOnce();
    const request = spy.mock.calls[0]![0];
    expect(request).toMatchObject({
      card: { number: VISA, expirationDate: '12/39', securityCode: '8642' },
      redirectUrl: REDIRECT,
      idempotencyKey: res.json().id,
      credentials: { merchant_id: 'm-1' },
    });
  });

  it('lists newest first and filters by payment_service_id', async () => {
    const { m, service, pm } = await setup();
    const other = await createService(m, { display_name: 'Second' });
    const first = (await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).json();
    const second = (await create(m, pm, { payment_service_id: other, redirect_url: REDIRECT })).json();
    expect((await list(m, pm)).json().items.map((i: { id: string }) => i.id)).toEqual([second.id, first.id]);
    expect((await list(m, pm, `?payment_service_id=${service}`)).json()).toEqual({ items: [first] });
    expect((await list(m, pm, `?payment_service_id=${UNKNOWN}`)).json()).toEqual({ items: [] });
  });

  it('records a decline as failed, and replaces a failed token on the next create', async () => {
    const { m, service, pm } = await setup(DECLINED);
    const failed = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT });
    expect(failed.statusCode, failed.body).toBe(201);
    expect(failed.json()).toMatchObject({ status: 'failed', token: null });
    const again = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT });
    expect(again.statusCode).toBe(201);
    expect(again.json().id).not.toBe(failed.json().id);
    expect((await list(m, pm)).json().items.map((i: { id: string }) => i.id)).toEqual([again.json().id]);
  });

  it('answers buyer_approval_required with the approval url', async () => {
    const { m, service, pm } = await setup();
    vi.spyOn(mockConnector(), 'tokenize').mockResolvedValueOnce({
      status: 'buyer_approval_required',
      token: null,
      approvalUrl: 'https://psp.example/approve/1',
      errorCode: null,
      rawResponseCode: null,
      rawResponseDescription: null,
    });
    const res = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT });
    expect(res.json()).toMatchObject({
      status: 'buyer_approval_required',
      approval_url: 'https://psp.example/approve/1',
      token: null,
    });
  });

  it('stays processing when the provider times out, and fails when it is unreachable', async () => {
    const { m, service, pm } = await setup();
    const other = await createService(m, { display_name: 'Second' });
    const spy = vi.spyOn(mockConnector(), 'tokenize').mockRejectedValueOnce(new ConnectorError('timeout', 'slow'));
    expect((await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).json()).toMatchObject({
      status: 'processing',
      token: null,
    });
    spy.mockRejectedValueOnce(new ConnectorError('unavailable', 'down'));
    expect((await create(m, pm, { payment_service_id: other, redirect_url: REDIRECT })).json()).toMatchObject({
      status: 'failed',
      token: null,
    });
    // The outcome of the processing one is unknown: it blocks a second create until deleted.
    expect((await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).statusCode).toBe(409);
  });

  it('deletes a token (204) and lets the pair be tokenized again', async () => {
    const { m, service, pm } = await setup();
    const token = (await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).json();
    const res = await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}`, merchantAccountId: m });
    expect(res.statusCode, res.body).toBe(204);
    expect((await list(m, pm)).json()).toEqual({ items: [] });
    expect((await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).statusCode).toBe(201);
  });

  it('replays a create byte for byte, without a second connector call', async () => {
    const { m, service, pm } = await setup();
    const spy = vi.spyOn(mockConnector(), 'tokenize');
    const send = () =>
      create(m, pm, { payment_service_id: service, redirect_url: REDIRECT }, { 'idempotency-key': `pst-${pm}` });
    const first = await send();
    const again = await send();
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
    expect(spy).toHaveBeenCalledOnce();
  });
});

describe('reconciliation', () => {
  const later = (minutes: number) => new Date(Date.now() + minutes * 60_000);
  const rowOf = (id: string) =>
    t.deps.db
      .selectFrom('payment_service_tokens')
      .select(['status', 'checks', 'next_check_at', 'error_code'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const timedOut = async (number = VISA) => {
    const { m, service, pm } = await setup(number);
    vi.spyOn(mockConnector(), 'tokenize').mockRejectedValueOnce(new ConnectorError('timeout', 'slow'));
    const token = (await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).json();
    expect(token.status).toBe('processing');
    return { m, pm, token };
  };

  it('asks the provider about a token left processing after 5 minutes, and records it succeeded', async () => {
    const { m, pm, token } = await timedOut();
    expect(await reconcileDueTokens(t.deps, later(1))).toBe(0);
    expect(await rowOf(token.id)).toMatchObject({ status: 'processing', checks: 0 });
    const sync = vi.spyOn(t.deps.connectors.get('mock-card'), 'syncToken' as never);
    expect(await reconcileDueTokens(t.deps, later(6))).toBeGreaterThanOrEqual(1);
    // By the create's idempotency key (the row id) and the card's first 6 / last 4 only.
    expect(sync).toHaveBeenCalledWith(
      expect.objectContaining({ idempotencyKey: token.id, card: { bin: '41111111', last4: '1111' } }),
    );
    expect(JSON.stringify(sync.mock.calls)).not.toContain(VISA);
    expect(await rowOf(token.id)).toMatchObject({ status: 'succeeded', checks: 1, next_check_at: null });
    expect((await list(m, pm)).json().items[0]).toMatchObject({
      id: token.id,
      status: 'succeeded',
      token: expect.stringMatching(/^mock_tok_/),
    });
  });

  it('records a decline as failed, and a create of the pair may then replace it', async () => {
    const { m, pm, token } = await timedOut(DECLINED);
    await reconcileDueTokens(t.deps, later(6));
    expect(await rowOf(token.id)).toMatchObject({ status: 'failed', error_code: 'do_not_honor', next_check_at: null });
    expect((await list(m, pm)).json().items[0]).toMatchObject({ status: 'failed', token: null });
  });

  it('asks again after 1 hour, then daily, while the provider cannot answer', async () => {
    const { token } = await timedOut();
    const sync = vi
      .spyOn(t.deps.connectors.get('mock-card'), 'syncToken' as never)
      .mockRejectedValue(new ConnectorError('timeout', 'slow') as never);
    const start = Date.now();
    await reconcileDueTokens(t.deps, later(6));
    const first = await rowOf(token.id);
    expect(first).toMatchObject({ status: 'processing', checks: 1 });
    expect(first.next_check_at!.getTime() - start).toBeGreaterThan(60 * 60_000);
    await reconcileDueTokens(t.deps, later(70));
    const second = await rowOf(token.id);
    expect(second.checks).toBe(2);
    expect(second.next_check_at!.getTime() - start).toBeGreaterThan(24 * 60 * 60_000);
    sync.mockRestore();
  });

  it('a token deleted meanwhile is not reconciled, and the job is registered on a schedule', async () => {
    const { m, pm, token } = await timedOut();
    expect(
      (await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}`, merchantAccountId: m })).statusCode,
    ).toBe(204);
    await reconcileDueTokens(t.deps, later(6));
    expect(
      await t.deps.db.selectFrom('payment_service_tokens').select('id').where('id', '=', token.id).execute(),
    ).toEqual([]);
    expect(RECURRING.map((r) => r.job.name)).toContain('reconcile-payment-service-tokens');
  });
});

describe('errors', () => {
  it('answers 409 with the existing token for a second create of the same pair', async () => {
    const { m, service, pm } = await setup();
    const token = (await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).json();
    const res = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'duplicate_record', resource_id: token.id });
  });

  it('answers 400 for a service that is unknown, inactive, or does not allow tokenization', async () => {
    const { m, pm } = await setup();
    const cases: Array<[string, string]> = [
      [UNKNOWN, 'could not be found'],
      [await createService(m, { active: false }), 'is not active'],
      [await createService(m, { payment_method_tokenization_enabled: false }), 'payment_method_tokenization_enabled'],
    ];
    for (const [id, message] of cases) {
      const res = await create(m, pm, { payment_service_id: id, redirect_url: REDIRECT });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        message: expect.stringContaining(message),
        details: [{ location: 'body', pointer: '/payment_service_id' }],
      });
    }
    expect((await list(m, pm)).json()).toEqual({ items: [] });
  });

  it('answers 422 for an invalid body and 404 for an unknown payment method or token', async () => {
    const { m, service, pm } = await setup();
    for (const payload of [
      { payment_service_id: service },
      { redirect_url: REDIRECT },
      { payment_service_id: service, redirect_url: REDIRECT, security_code: '12' },
      { payment_service_id: 'x', redirect_url: REDIRECT },
    ]) {
      expect((await create(m, pm, payload)).statusCode).toBe(422);
    }
    expect((await create(m, UNKNOWN, { payment_service_id: service, redirect_url: REDIRECT })).statusCode).toBe(404);
    expect((await list(m, UNKNOWN)).statusCode).toBe(404);
    expect((await list(m, pm, '?payment_service_id=nope')).statusCode).toBe(422);
    expect(
      (await t.request({ method: 'DELETE', url: `${base(pm)}/${UNKNOWN}`, merchantAccountId: m })).statusCode,
    ).toBe(404);
  });
});

describe('security', () => {
  const fresh = async () => {
    const { m, service, pm } = await setup();
    return { m, pm, token: (await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT })).json() };
  };
  describe('create', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { m, service, pm } = await setup();
        return {
          method: 'POST',
          url: base(pm),
          merchantAccountId: m,
          payload: { payment_service_id: service, redirect_url: REDIRECT },
        };
      },
      scope: 'payment-methods.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, { request: () => ({ method: 'GET', url: base(UNKNOWN) }), scope: 'payment-methods.read' }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { m, pm, token } = await fresh();
        return { method: 'DELETE', url: `${base(pm)}/${token.id}`, merchantAccountId: m };
      },
      scope: 'payment-methods.write',
    }));

  it("answers 404 for another merchant account's payment method and tokens", async () => {
    const { m, pm, token } = await fresh();
    const other = await createMerchantAccount(t.deps);
    const theirService = await createService(other);
    expect((await create(other, pm, { payment_service_id: theirService, redirect_url: REDIRECT })).statusCode).toBe(
      404,
    );
    expect((await list(other, pm)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `${base(pm)}/${token.id}`, merchantAccountId: other })).statusCode,
    ).toBe(404);
    expect((await list(m, pm)).json().items).toEqual([token]);
  });

  it("refuses another merchant account's payment service", async () => {
    const { pm, m } = await setup();
    const theirs = await createService(await createMerchantAccount(t.deps));
    expect((await create(m, pm, { payment_service_id: theirs, redirect_url: REDIRECT })).statusCode).toBe(400);
  });

  it('keeps the card number and security code out of responses, logs, audit entries and jobs', async () => {
    const { m, service, pm } = await setup();
    const created = await create(m, pm, { payment_service_id: service, redirect_url: REDIRECT, security_code: '8642' });
    const listed = await list(m, pm);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const jobs = await sql<{ text: string }>`SELECT row_to_json(j)::text AS text FROM jobs j`.execute(t.deps.db);
    const everything = [
      created.body,
      listed.body,
      ...t.logs,
      ...audit.rows.map((r) => r.text),
      ...jobs.rows.map((r) => r.text),
    ].join('\n');
    expect(everything).not.toContain(VISA);
    expect(everything).not.toContain('"8642"');
    expect(t.logs.join('\n')).not.toContain(created.json().token);
  });
});
