import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { changesDelivered } from '../../../../test/helpers/changes-delivered.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';

/** `GET /transactions/{id}/captures` and `GET .../captures/{capture_id}`: the capture records of a transaction. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const MULTI = [
  { key: 'merchant_id', value: 'm-1' },
  { key: 'multi_capture_enabled', value: 'true' },
];
const get = (m: string, url: string) => t.request({ method: 'GET', url, merchantAccountId: m });
const capture = (m: string, id: string, payload: object) =>
  t.request({ method: 'POST', url: `/transactions/${id}/capture`, merchantAccountId: m, payload });

describe('happy', () => {
  it('lists every capture of a multi-capture transaction, newest first, and reads each', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
    const txn = await authorized(t, m, { external_identifier: 'order-1' });
    expect((await capture(m, txn.id, { amount: 300, final: false, external_identifier: 'cap-1' })).statusCode).toBe(
      200,
    );
    expect((await capture(m, txn.id, {})).statusCode).toBe(200);
    const res = await get(m, `/transactions/${txn.id}/captures`);
    expect(res.statusCode, res.body).toBe(200);
    const { items, ...envelope } = res.json();
    expect(envelope).toEqual({ limit: 2, next_cursor: null, previous_cursor: null });
    expect(items).toMatchObject([
      {
        type: 'capture',
        merchant_account_id: m,
        transaction_id: txn.id,
        currency: 'USD',
        amount: 700,
        status: 'succeeded',
        final: true,
        external_identifier: null,
        transaction_external_identifier: 'order-1',
      },
      {
        type: 'capture',
        amount: 300,
        status: 'succeeded',
        final: false,
        external_identifier: 'cap-1',
        error_code: null,
        iso_response_code: null,
        raw_response_code: null,
        raw_response_description: null,
        cart_items: null,
      },
    ]);
    for (const item of items) {
      expect(item.xid).toMatch(/^mock_cap/);
      expect(item.captured_at).toBe(item.updated_at);
      const one = await get(m, `/transactions/${txn.id}/captures/${item.id}`);
      expect(one.statusCode, one.body).toBe(200);
      expect(one.json()).toEqual(item);
    }
  });

  it('a capture pending at the provider is pending until a status query confirms it', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { amount: 2077 });
    expect((await capture(m, txn.id, {})).json()).toMatchObject({ status: 'pending' });
    const [pending] = (await get(m, `/transactions/${txn.id}/captures`)).json().items;
    expect(pending).toMatchObject({ status: 'pending', amount: 2077, final: true, captured_at: null });
    await t.request({ method: 'POST', url: `/transactions/${txn.id}/sync`, merchantAccountId: m });
    expect((await get(m, `/transactions/${txn.id}/captures/${pending.id}`)).json()).toMatchObject({
      id: pending.id,
      status: 'succeeded',
      captured_at: expect.any(String),
    });
  });

  it('an authorize-and-capture transaction and an authorization not captured have no capture records', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    for (const intent of ['capture', 'authorize']) {
      const txn = await authorized(t, m, { intent });
      expect((await get(m, `/transactions/${txn.id}/captures`)).json()).toEqual({
        items: [],
        limit: 1,
        next_cursor: null,
        previous_cursor: null,
      });
    }
  });
});

describe('the payment service of a capture', () => {
  it('captures through the service as it is now: deactivated it still serves its transactions, deleted it refuses', async () => {
    const { merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t);
    // The authorizations route through the process's cache of active services; captures read it too.
    const [first, second, third] = [await authorized(t, m), await authorized(t, m), await authorized(t, m)];
    expect((await capture(m, first.id, {})).json()).toMatchObject({ status: 'succeeded' });
    const put = await t.request({
      method: 'PUT',
      url: `/payment-services/${paymentServiceId}`,
      merchantAccountId: m,
      payload: { active: false },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect((await capture(m, second.id, {})).json()).toMatchObject({
      status: 'succeeded',
      transaction: { payment_service: { id: paymentServiceId } },
    });
    expect(
      (await t.request({ method: 'DELETE', url: `/payment-services/${paymentServiceId}`, merchantAccountId: m }))
        .statusCode,
    ).toBe(204);
    const refused = await capture(m, third.id, {});
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.json().message).toBe(`The payment service ${paymentServiceId} of this transaction has been deleted`);
    expect((await get(m, `/transactions/${third.id}`)).json()).toMatchObject({
      status: 'authorization_succeeded',
      captured_amount: 0,
    });
  });

  it('reads an active service from the cache: a capture sends one statement fewer than its first one', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txns = [await authorized(t, m), await authorized(t, m)];
    const statements = async (id: string) => {
      const res = await capture(m, id, {});
      expect(res.statusCode, res.body).toBe(200);
      return Number(/db;dur=[\d.]+;desc="(\d+) statements"/.exec(String(res.headers['server-timing']))![1]);
    };
    // No notification of the set-up's writes may empty the cache between the two captures.
    await changesDelivered(t);
    t.deps.readCaches.paymentServices.invalidate(m);
    const cold = await statements(txns[0]!.id);
    const warm = await statements(txns[1]!.id);
    expect(warm).toBe(cold - 1);
  });
});

describe('webhook events', () => {
  const events = (id: string) =>
    t.deps.db
      .selectFrom('events')
      .select(['kind', 'resource_type', 'payload'])
      .where('resource_id', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  it('capture.succeeded with the capture record when a capture succeeds', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const txn = await authorized(t, m);
    await capture(m, txn.id, { amount: 600 });
    const [record] = (await get(m, `/transactions/${txn.id}/captures`)).json().items;
    expect(await events(record.id)).toEqual([{ kind: 'capture.succeeded', resource_type: 'capture', payload: record }]);
  });

  it('capture.pending when the provider has not captured yet, then capture.succeeded when a status query confirms it', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const txn = await authorized(t, m, { amount: 2077 });
    await capture(m, txn.id, {});
    const [record] = (await get(m, `/transactions/${txn.id}/captures`)).json().items;
    expect((await events(record.id)).map((e) => [e.kind, (e.payload as { status: string }).status])).toEqual([
      ['capture.pending', 'pending'],
    ]);
    await t.request({ method: 'POST', url: `/transactions/${txn.id}/sync`, merchantAccountId: m });
    const after = (await get(m, `/transactions/${txn.id}/captures/${record.id}`)).json();
    expect((await events(record.id)).map((e) => e.kind)).toEqual(['capture.pending', 'capture.succeeded']);
    expect((await events(record.id))[1]!.payload).toEqual(after);
  });
});

describe('errors', () => {
  it('404 for an unknown transaction, an unknown capture, or a capture of another transaction', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const first = await authorized(t, m);
    const second = await authorized(t, m);
    await capture(m, first.id, {});
    const [own] = (await get(m, `/transactions/${first.id}/captures`)).json().items;
    const unknown = uuidv7();
    expect((await get(m, `/transactions/${unknown}/captures`)).json()).toMatchObject({
      status: 404,
      code: 'not_found',
    });
    expect((await get(m, `/transactions/${unknown}/captures/${own.id}`)).statusCode).toBe(404);
    expect((await get(m, `/transactions/${first.id}/captures/${unknown}`)).statusCode).toBe(404);
    expect((await get(m, `/transactions/${second.id}/captures/${own.id}`)).statusCode).toBe(404);
  });

  it('422 for ids that are not uuids', async () => {
    const res = await get('default', '/transactions/nope/captures/also-nope');
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(['path', 'transaction_id']);
  });
});

describe('security', () => {
  let m: string;
  let txnId: string;
  let captureId: string;
  beforeAll(async () => {
    ({ merchantAccountId: m } = await merchantWithMockCard(t));
    txnId = (await authorized(t, m)).id;
    await capture(m, txnId, {});
    captureId = (await get(m, `/transactions/${txnId}/captures`)).json().items[0].id;
  });

  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `/transactions/${txnId}/captures`, merchantAccountId: m }),
      scope: 'transactions.read',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `/transactions/${txnId}/captures/${captureId}`, merchantAccountId: m }),
      scope: 'transactions.read',
    }));

  it("answers 404 for another merchant account's transaction and capture", async () => {
    const { merchantAccountId: other } = await merchantWithMockCard(t);
    expect((await get(other, `/transactions/${txnId}/captures`)).statusCode).toBe(404);
    expect((await get(other, `/transactions/${txnId}/captures/${captureId}`)).statusCode).toBe(404);
  });
});
