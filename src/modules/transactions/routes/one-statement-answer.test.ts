import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { changesDelivered } from '../../../../test/helpers/changes-delivered.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { authorized, card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * `POST /transactions` records a plain answer in one statement whose events and webhook snapshot are
 * rendered from the predicted row (create-transaction.service.ts, predicted-row.ts): they must show
 * what the database then holds, for every kind of answer.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const createdEvent = (id: string) =>
  t.deps.db
    .selectFrom('events')
    .selectAll()
    .where('resource_id', '=', id)
    .where('kind', '=', 'transaction.created')
    .executeTakeFirstOrThrow();
/** A merchant account with the sandbox card service and a webhook subscription: its events are written. */
async function subscribedMerchant() {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  await subscribeToEvents(t, m);
  return m;
}
const statements = (res: { headers: Record<string, unknown> }) =>
  Number(/desc="(\d+) statements"/.exec(String(res.headers['server-timing']))![1]);
const mispredictions = () => t.logs.filter((line) => line.includes('predicted transaction row differs'));

describe('happy', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      'an authorization',
      {
        metadata: { order: '42' },
        external_identifier: 'order-42',
        cart_items: [{ name: 'Socks', quantity: 2, unit_amount: 500 }],
      },
      'authorization_succeeded',
    ],
    ['a capture', { intent: 'capture', statement_descriptor: { name: 'Shop' } }, 'capture_succeeded'],
    ['a decline', { payment_method: card('4000000000000002') }, 'authorization_declined'],
    ['a provider failure', { amount: 2096 }, 'authorization_failed'],
    ['a pending capture', { intent: 'capture', payment_method: card('4000000000000077') }, 'capture_pending'],
  ];
  for (const [name, body, status] of cases) {
    it(`${name}: the webhook snapshot and the history match the stored transaction`, async () => {
      const m = await subscribedMerchant();
      const txn = await authorized(t, m, body);
      expect(txn.status).toBe(status);
      const stored = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
      expect(txn).toEqual(stored);
      expect((await createdEvent(txn.id)).payload).toEqual(stored);
      const events = (
        await t.request({ method: 'GET', url: `/transactions/${txn.id}/events`, merchantAccountId: m })
      ).json().items;
      expect(events.length).toBeGreaterThanOrEqual(2);
      expect(mispredictions()).toEqual([]);
    });
  }

  for (const [name, body, status] of cases) {
    it(`with an idempotency key, ${name}: the response, rendered from the predicted row, is stored by the answer's statement and replayed as it is`, async () => {
      const m = await subscribedMerchant();
      // The set-up's late notifications would empty the payment service's cache between the two
      // counted requests (test/helpers/changes-delivered.ts).
      await changesDelivered(t);
      // The same request without a key, for its count of statements, once the account's caches are
      // warm (its routing, its data keys: a keyed request before seals a response).
      await createTransaction(t, m, body, { 'idempotency-key': `warm-${m}` });
      const plain = await createTransaction(t, m, body);
      expect(plain.statusCode, plain.body).toBe(201);
      const headers = { 'idempotency-key': `one-statement-${m}` };
      const first = await createTransaction(t, m, body, headers);
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json().status).toBe(status);
      // One statement more than without a key: the key's claim. The response is stored by the
      // answer's own statement, with no transaction (BEGIN, the statement, the store, COMMIT) around it.
      expect(statements(first)).toBe(statements(plain) + 1);
      const again = await createTransaction(t, m, body, headers);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      const stored = (
        await t.request({ method: 'GET', url: `/transactions/${first.json().id}`, merchantAccountId: m })
      ).json();
      expect(first.json()).toEqual(stored);
      expect((await createdEvent(first.json().id)).payload).toEqual(stored);
      const key = await t.deps.db
        .selectFrom('idempotency_keys')
        .select(['state', 'response_status', 'resource_id'])
        .where('merchant_account_id', '=', m)
        .where('key', '=', headers['idempotency-key'])
        .executeTakeFirstOrThrow();
      expect(key).toEqual({ state: 'completed', response_status: 201, resource_id: first.json().id });
      expect(mispredictions()).toEqual([]);
    });
  }

  it('concurrent requests with keys: each stores its own response, replayed byte for byte', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const keys = Array.from({ length: 12 }, (_, i) => `concurrent-${m}-${i}`);
    const firsts = await Promise.all(
      keys.map((key, i) => createTransaction(t, m, { amount: 1000 + i }, { 'idempotency-key': key })),
    );
    firsts.forEach((res, i) => {
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().amount).toBe(1000 + i);
    });
    const replays = await Promise.all(
      keys.map((key, i) => createTransaction(t, m, { amount: 1000 + i }, { 'idempotency-key': key })),
    );
    for (const [i, res] of replays.entries()) expect(res.body).toBe(firsts[i]!.body);
    expect(new Set(firsts.map((res) => res.json().id)).size).toBe(keys.length);
    expect(mispredictions()).toEqual([]);
  });
});

describe('refunds', () => {
  const refundEvents = (id: string) =>
    t.deps.db
      .selectFrom('events')
      .select(['kind', 'payload'])
      .where('resource_id', '=', id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  const amounts = (id: string) =>
    t.deps.db
      .selectFrom('transactions')
      .select(['captured_amount', 'refunded_amount', 'refund_reserved'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('a refund that succeeds: released and counted, its events show the stored refund', async () => {
    const m = await subscribedMerchant();
    const txn = await authorized(t, m, { intent: 'capture' });
    const res = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 400 },
    });
    expect(res.statusCode, res.body).toBe(201);
    const stored = (await t.request({ method: 'GET', url: `/refunds/${res.json().id}`, merchantAccountId: m })).json();
    expect(res.json()).toEqual(stored);
    expect(stored.status).toBe('succeeded');
    expect((await refundEvents(stored.id)).map((e) => [e.kind, e.payload])).toEqual([
      ['refund.created', stored],
      ['refund.succeeded', stored],
    ]);
    expect(await amounts(txn.id)).toEqual({ captured_amount: 1000, refunded_amount: 400, refund_reserved: 0 });
  });

  const refundMispredictions = () => t.logs.filter((line) => line.includes('predicted refund row differs'));
  const refund = (m: string, id: string, amount: number, headers: Record<string, string> = {}) =>
    t.request({
      method: 'POST',
      url: `/transactions/${id}/refunds`,
      merchantAccountId: m,
      payload: { amount },
      headers,
    });

  for (const [name, number, status] of [
    ['that succeeds', '4111111111111111', 'succeeded'],
    ['the provider declines', '4000000000000341', 'declined'],
  ] as const) {
    it(`with an idempotency key, a refund ${name}: the response is stored by the answer's statement and replayed as it is`, async () => {
      const m = await subscribedMerchant();
      const txn = await authorized(t, m, { intent: 'capture', payment_method: card(number) });
      await changesDelivered(t);
      // Warm the account's caches (a keyed request seals a response with its data key), then count a
      // plain refund's statements.
      expect((await refund(m, txn.id, 100, { 'idempotency-key': `warm-refund-${m}` })).statusCode).toBe(201);
      const plain = await refund(m, txn.id, 100);
      expect(plain.statusCode, plain.body).toBe(201);
      const headers = { 'idempotency-key': `one-statement-refund-${m}` };
      const first = await refund(m, txn.id, 300, headers);
      expect(first.statusCode, first.body).toBe(201);
      expect(first.json().status).toBe(status);
      // One statement more than without a key (the key's claim), no transaction around the answer.
      expect(statements(first)).toBe(statements(plain) + 1);
      const again = await refund(m, txn.id, 300, headers);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
      const stored = (
        await t.request({ method: 'GET', url: `/refunds/${first.json().id}`, merchantAccountId: m })
      ).json();
      expect(first.json()).toEqual(stored);
      expect((await refundEvents(stored.id)).map((e) => e.payload)).toEqual([stored, stored]);
      // A refund binds no resource to its key (only an authorization resumes one).
      const key = await t.deps.db
        .selectFrom('idempotency_keys')
        .select(['state', 'response_status'])
        .where('merchant_account_id', '=', m)
        .where('key', '=', headers['idempotency-key'])
        .executeTakeFirstOrThrow();
      expect(key).toEqual({ state: 'completed', response_status: 201 });
      const refunded = status === 'succeeded' ? 500 : 0;
      expect(await amounts(txn.id)).toEqual({ captured_amount: 1000, refunded_amount: refunded, refund_reserved: 0 });
      expect(refundMispredictions()).toEqual([]);
    });
  }

  it('a refund the provider declines: released, not counted', async () => {
    const m = await subscribedMerchant();
    const txn = await authorized(t, m, { intent: 'capture', payment_method: card('4000000000000341') });
    const res = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 400 },
    });
    expect(res.json()).toMatchObject({ status: 'declined', error_code: 'refund_declined' });
    expect((await refundEvents(res.json().id)).map((e) => e.kind)).toEqual(['refund.created', 'refund.failed']);
    expect(await amounts(txn.id)).toEqual({ captured_amount: 1000, refunded_amount: 0, refund_reserved: 0 });
  });
});

// A transaction that moved before its answer (the guard refusing the statement) is covered in
// concurrency.test.ts: "a cancel during the authorization call".
