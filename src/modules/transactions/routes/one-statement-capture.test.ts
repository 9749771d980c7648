import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { ConnectorError, type CaptureOutcome, type CaptureRequest } from '../../../connectors/connector.ts';
import { groupRunnerOf } from '../../../db/write-batch.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import * as repo from '../transactions.repo.ts';

/**
 * A capture reserves in one guarded statement and records a connector's answer in another
 * (capture-transaction.service.ts), a refund reserves in one (refund-transaction.service.ts); when
 * the transaction moved in between, the locked path does it. Both paths must write the same: the
 * same response, webhook events (with their deliveries), history, audit entry, settlement job.
 * Which path ran is told by the reads `FOR UPDATE` of the transaction: only the locked paths make them.
 */
vi.mock(import('../transactions.repo.ts'), async (importOriginal) => {
  const original = await importOriginal();
  return { ...original, findTransaction: vi.fn(original.findTransaction) };
});

const MULTI = [
  { key: 'merchant_id', value: 'm-1' },
  { key: 'multi_capture_enabled', value: 'true' },
];
let t: TestApp;
let m: string;
beforeAll(async () => {
  t = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  ({ merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI }));
  // A subscription: every webhook event comes with its delivery and the delivery's job.
  const sub = await t.request({
    method: 'POST',
    url: '/webhook-subscriptions',
    merchantAccountId: m,
    payload: { url: 'http://127.0.0.1:9/hooks' },
  });
  expect(sub.statusCode, sub.body).toBe(201);
});
afterAll(async () => t.close());

const connector = () => t.deps.connectors.get('mock-card');
const originalCapture = () =>
  Object.getPrototypeOf(connector()).capture as (request: CaptureRequest) => Promise<CaptureOutcome>;
afterEach(() => {
  delete (connector() as { capture?: unknown }).capture;
});

/** The mock connector's captures answer with `answer`, after `during` ran while the call was at the provider. */
function captureAnswers(
  answer: ((request: CaptureRequest) => Promise<CaptureOutcome>) | null,
  during: () => Promise<void> = async () => {},
) {
  const instance = connector();
  instance.capture = async (request) => {
    await during();
    return answer ? answer(request) : originalCapture().call(instance, request);
  };
}

/** Moves the transaction without changing anything it shows, so the guard of the answer fails. */
const touch = (id: string) => async () => {
  await t.deps.db
    .updateTable('transactions')
    .set({ updated_at: sql`updated_at + interval '1 millisecond'` })
    .where('id', '=', id)
    .execute();
};

const lockedReads = (id: string) =>
  vi.mocked(repo.findTransaction).mock.calls.filter(([, , txn, options]) => txn === id && options?.forUpdate).length;
const capture = (id: string, payload: object, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: `/transactions/${id}/capture`, merchantAccountId: m, payload, headers });
const get = async (url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
const mispredictions = () => t.logs.filter((line) => line.includes('predicted transaction row differs'));

/** Everything written since `marker` (ids are uuidv7, ordered by time) about transaction `id`. */
async function written(id: string, marker: string) {
  const db = t.deps.db;
  const events = await db
    .selectFrom('events')
    .select(['id', 'kind', 'resource_type', 'payload'])
    .where('merchant_account_id', '=', m)
    .where('id', '>', marker)
    .orderBy('id')
    .execute();
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .select('event_id')
    .where('merchant_account_id', '=', m)
    .where('id', '>', marker)
    .execute();
  return {
    events: events.map((e) => ({
      kind: e.kind,
      resource_type: e.resource_type,
      payload: e.payload,
      deliveries: deliveries.filter((d) => d.event_id === e.id).length,
    })),
    history: await db
      .selectFrom('transaction_events')
      .select(['name', 'context'])
      .where('transaction_id', '=', id)
      .where('id', '>', marker)
      .orderBy('id')
      .execute(),
    audit: await db
      .selectFrom('audit_logs')
      .select(['action', 'resource_type', 'resource_id', 'resource_name', 'user_name', 'operation_id'])
      .where('merchant_account_id', '=', m)
      .where('id', '>', marker)
      .execute(),
    jobs: await db
      .selectFrom('jobs')
      .select(['name', 'payload', 'job_key'])
      .where('id', '>', marker)
      .orderBy('id')
      .execute(),
    attempts: await db
      .selectFrom('transaction_attempts')
      .selectAll()
      .where('transaction_id', '=', id)
      .where('id', '>', marker)
      .execute(),
    transaction: await db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow(),
  };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/;
/** Values that differ between two transactions however they were captured (ids, times, provider references). */
const OWN = new Set([
  'reconciliation_id',
  'transaction_reconciliation_id',
  'duration_ms',
  'xid',
  'provider_reference',
  'payment_service_transaction_id',
  'scheme_transaction_id',
  'request_id',
  'additional_identifiers',
]);

/** `value` with what belongs to one transaction or one moment replaced by placeholders. */
function shape(value: unknown): unknown {
  if (value instanceof Date) return 'time';
  if (Array.isArray(value)) return value.map(shape);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, OWN.has(key) ? typeof v : shape(v)]));
  if (typeof value === 'string') return TIME.test(value) ? 'time' : value.replace(UUID, 'uuid');
  return value;
}

/** Captures a new transaction of `amount` with `body`; `locked`: the answer's guard is made to fail. */
async function run(
  amount: number,
  body: object,
  answer: ((request: CaptureRequest) => Promise<CaptureOutcome>) | null,
  locked: boolean,
  headers: Record<string, string> = {},
) {
  const txn = await authorized(t, m, { amount });
  captureAnswers(answer, locked ? touch(txn.id) : undefined);
  const marker = uuidv7();
  const res = await capture(txn.id, body, headers);
  expect(res.statusCode, res.body).toBe(200);
  expect(lockedReads(txn.id)).toBe(locked ? 1 : 0);
  return { txn, res, writes: await written(txn.id, marker) };
}

const answered = (outcome: Partial<CaptureOutcome>) => async (): Promise<CaptureOutcome> => ({
  status: 'succeeded',
  providerCaptureId: null,
  errorCode: null,
  rawResponseCode: null,
  rawResponseDescription: null,
  ...outcome,
});

describe('happy', () => {
  const cases: Array<[string, number, object, ((request: CaptureRequest) => Promise<CaptureOutcome>) | null, string]> =
    [
      ['succeeds', 1000, { amount: 400 }, null, 'capture_succeeded'],
      [
        'succeeds, not final (multi-capture)',
        1000,
        { amount: 400, final: false, external_identifier: 'cap-1' },
        null,
        'capture_succeeded',
      ],
      ['is pending at the provider', 2077, {}, null, 'capture_pending'],
      [
        'is declined',
        1000,
        { amount: 400 },
        answered({
          status: 'declined',
          errorCode: 'capture_declined',
          rawResponseCode: '05',
          rawResponseDescription: 'Do not honor',
        }),
        'authorization_succeeded',
      ],
      [
        'fails at the provider',
        1000,
        { amount: 400, final: false },
        answered({
          status: 'failed',
          errorCode: 'service_error',
          rawResponseCode: '96',
          rawResponseDescription: 'System malfunction',
        }),
        'authorization_succeeded',
      ],
      [
        'cannot reach the provider',
        1000,
        { amount: 400 },
        async () => {
          throw new ConnectorError('unavailable', 'The mock processor could not be reached');
        },
        'authorization_succeeded',
      ],
    ];
  for (const [name, amount, body, answer, status] of cases) {
    it(`a capture that ${name}: one statement writes what the locked path writes`, async () => {
      const quick = await run(amount, body, answer, false);
      const locked = await run(amount, body, answer, true);
      expect(quick.res.json().transaction.status).toBe(status);
      expect(shape(quick.res.json())).toEqual(shape(locked.res.json()));
      expect(shape(quick.writes)).toEqual(shape(locked.writes));
      for (const { txn, res, writes } of [quick, locked]) {
        const stored = await get(`/transactions/${txn.id}`);
        expect(res.json().transaction).toEqual(stored);
        const [record] = (await get(`/transactions/${txn.id}/captures`)).items;
        expect(writes.events.find((e) => e.resource_type === 'capture')!.payload).toEqual(record);
        const snapshot = writes.events.find((e) => e.resource_type === 'transaction');
        if (snapshot) expect(snapshot.payload).toEqual(stored);
        // A capture pending at the provider keeps its amount reserved until it is confirmed.
        expect(writes.transaction.capture_reserved).toBe(status === 'capture_pending' ? amount : 0);
      }
      expect(mispredictions()).toEqual([]);
    });
  }

  it('prefer: resource=transaction answers the stored transaction on both paths', async () => {
    const headers = { prefer: 'resource=transaction' };
    const quick = await run(1000, { amount: 300 }, null, false, headers);
    const locked = await run(1000, { amount: 300 }, null, true, headers);
    expect(quick.res.json()).toEqual(await get(`/transactions/${quick.txn.id}`));
    expect(shape(quick.res.json())).toEqual(shape(locked.res.json()));
  });

  it('with an idempotency key, both paths store the response and replay it byte for byte', async () => {
    for (const locked of [false, true]) {
      const headers = { 'idempotency-key': `one-statement-capture-${uuidv7()}` };
      const { txn, res } = await run(1000, { amount: 250, final: false }, null, locked, headers);
      const replay = await capture(txn.id, { amount: 250, final: false }, headers);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(res.body);
      expect(await get(`/transactions/${txn.id}`)).toMatchObject({ captured_amount: 250 });
    }
  });

  it.skipIf(!usesPostgres())(
    'captures and refunds of different transactions share grouped statements (PostgreSQL)',
    async () => {
      const stats = () => ({ ...groupRunnerOf(t.deps.db)!.stats });
      const txns = await Promise.all(Array.from({ length: 12 }, () => authorized(t, m)));
      const before = stats();
      const captures = await Promise.all(txns.map((txn, i) => capture(txn.id, { amount: 100 + i, final: false })));
      captures.forEach((res, i) =>
        expect(res.json(), res.body).toMatchObject({ status: 'succeeded', transaction: { captured_amount: 100 + i } }),
      );
      const refunds = await Promise.all(
        txns.map((txn, i) =>
          t.request({
            method: 'POST',
            url: `/transactions/${txn.id}/refunds`,
            merchantAccountId: m,
            payload: { amount: 50 + i },
          }),
        ),
      );
      refunds.forEach((res, i) => expect(res.json(), res.body).toMatchObject({ status: 'succeeded', amount: 50 + i }));
      const after = stats();
      // Nothing failed and fell back to one by one (each transaction was written by its own request only).
      expect(after.fallbacks).toBe(before.fallbacks);
      expect(after.members - before.members).toBeGreaterThan(after.statements - before.statements);
      for (const [i, txn] of txns.entries()) {
        expect(lockedReads(txn.id)).toBe(0);
        const row = await t.deps.db
          .selectFrom('transactions')
          .select(['captured_amount', 'capture_reserved', 'refunded_amount', 'refund_reserved'])
          .where('id', '=', txn.id)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({
          captured_amount: 100 + i,
          capture_reserved: 0,
          refunded_amount: 50 + i,
          refund_reserved: 0,
        });
      }
      expect(mispredictions()).toEqual([]);
    },
  );

  it('a refund reserves and records its answer without a row lock', async () => {
    const txn = await authorized(t, m, { intent: 'capture' });
    const res = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 400, reason: 'damaged' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(lockedReads(txn.id)).toBe(0);
    expect(res.json()).toEqual(await get(`/refunds/${res.json().id}`));
    const events = await t.deps.db
      .selectFrom('events')
      .select(['kind', 'payload'])
      .where('resource_id', '=', res.json().id)
      .orderBy('id')
      .execute();
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['refund.created', res.json()],
      ['refund.succeeded', res.json()],
    ]);
  });
});

describe('errors', () => {
  it('a timeout is recorded under the lock: the capture stays pending and its amount reserved', async () => {
    const txn = await authorized(t, m);
    captureAnswers(async () => {
      throw new ConnectorError('timeout', 'The mock processor did not answer in time');
    });
    const res = await capture(txn.id, { amount: 400 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'pending',
      code: 'timeout',
      transaction: { status: 'authorization_succeeded', captured_amount: 0 },
    });
    expect(lockedReads(txn.id)).toBe(1);
    const row = await t.deps.db
      .selectFrom('transactions')
      .select(['capture_reserved', 'capture_closed'])
      .where('id', '=', txn.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ capture_reserved: 400, capture_closed: true });
    const [record] = (await get(`/transactions/${txn.id}/captures`)).items;
    expect(record).toMatchObject({ status: 'pending', error_code: 'timeout' });
  });

  it('a declined final capture reopens the authorization: a later capture takes the rest', async () => {
    const txn = await authorized(t, m);
    captureAnswers(answered({ status: 'declined', errorCode: 'capture_declined' }));
    expect((await capture(txn.id, { amount: 400 })).json()).toMatchObject({
      status: 'declined',
      code: 'capture_declined',
      transaction: { status: 'authorization_succeeded', captured_amount: 0 },
    });
    captureAnswers(null);
    expect((await capture(txn.id, {})).json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 1000 },
    });
    expect(lockedReads(txn.id)).toBe(0);
  });

  it('a refusal from the read without a lock writes nothing', async () => {
    const txn = await authorized(t, m);
    const marker = uuidv7();
    const res = await capture(txn.id, { amount: 1001 });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({
      pointer: '/amount',
      message: expect.stringContaining('1000 remains authorized'),
    });
    expect(lockedReads(txn.id)).toBe(0);
    const writes = await written(txn.id, marker);
    expect([writes.events, writes.history, writes.audit, writes.attempts]).toEqual([[], [], [], []]);
    expect(writes.transaction).toMatchObject({ capture_reserved: 0, capture_closed: false });
  });

  // The transaction moves between the read and the reservation (here: another capture, or a
  // refund, runs to its end right after the read): the guard refuses, the lock decides.
  async function afterTheRead(id: string, meanwhile: () => Promise<unknown>) {
    const actual = await vi.importActual<typeof repo>('../transactions.repo.ts');
    vi.mocked(repo.findTransaction).mockImplementationOnce(async (db, merchantAccountId, txn, options) => {
      const row = await actual.findTransaction(db, merchantAccountId, txn, options);
      expect(txn).toBe(id);
      await meanwhile();
      return row;
    });
  }

  it('a capture whose transaction moved after its read reserves under the lock, from the moved row', async () => {
    const txn = await authorized(t, m);
    await afterTheRead(txn.id, async () =>
      expect((await capture(txn.id, { amount: 700, final: false })).statusCode).toBe(200),
    );
    const res = await capture(txn.id, { amount: 400, final: false });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toContain('at most 300 remains authorized');
    expect(lockedReads(txn.id)).toBe(1);
    await afterTheRead(txn.id, async () =>
      expect((await capture(txn.id, { amount: 100, final: false })).statusCode).toBe(200),
    );
    expect((await capture(txn.id, { amount: 200, final: false })).json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 1000 },
    });
    expect(lockedReads(txn.id)).toBe(2);
    expect(
      await t.deps.db
        .selectFrom('transactions')
        .select(['captured_amount', 'capture_reserved'])
        .where('id', '=', txn.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ captured_amount: 1000, capture_reserved: 0 });
  });

  it('a refund whose transaction moved after its read reserves under the lock', async () => {
    const txn = await authorized(t, m, { intent: 'capture' });
    const refund = (amount: number) =>
      t.request({ method: 'POST', url: `/transactions/${txn.id}/refunds`, merchantAccountId: m, payload: { amount } });
    await afterTheRead(txn.id, async () => expect((await refund(600)).statusCode).toBe(201));
    const res = await refund(500);
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toBe('amount exceeds what can be refunded (400 is left)');
    await afterTheRead(txn.id, async () => expect((await refund(100)).statusCode).toBe(201));
    expect((await refund(300)).json()).toMatchObject({ status: 'succeeded', amount: 300 });
    expect(lockedReads(txn.id)).toBe(2);
    expect(
      await t.deps.db
        .selectFrom('transactions')
        .select(['refunded_amount', 'refund_reserved'])
        .where('id', '=', txn.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ refunded_amount: 1000, refund_reserved: 0 });
  });
});
