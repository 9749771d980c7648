import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/db/client.ts';
import { JOBS } from '../../src/jobs/index.ts';
import { JobQueue } from '../../src/jobs/queue.ts';
import { pollJobs } from '../../src/modules/jobs/jobs.repo.ts';
import {
  settleCaptures,
  settleMany,
  type SettlementOrder,
} from '../../src/modules/transactions/settlements/settle-captures.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { authorized, card, createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Settlements claimed and written in batches (decision 0151), through the API: each capture settled
 * once, whoever runs its job and however the jobs are cut into batches; a failing settlement is
 * retried alone; a batch is written whole or not at all.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
});
afterAll(async () => t.close());

const MULTI = [
  { key: 'merchant_id', value: 'm-1' },
  { key: 'multi_capture_enabled', value: 'true' },
];
const silent = { info() {}, warn() {}, error() {} };
/** A log that fails the test on a warning: a batch that fell back to one by one. */
const strict = {
  ...silent,
  warn(obj: object, msg?: string) {
    throw new Error(`unexpected warning: ${msg} ${JSON.stringify(obj)}`);
  },
};
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();

async function captured(m: string, amount = 1000): Promise<string> {
  const res = await createTransaction(t, m, { amount, intent: 'capture' });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json().status).toBe('capture_succeeded');
  return res.json().id;
}

/** The settlement amounts of a transaction (GET .../settlements), sorted, and its settled fields. */
async function settledOf(m: string, id: string) {
  const amounts = (await get(m, `/transactions/${id}/settlements`)).items
    .map((s: { amount: number }) => s.amount)
    .sort((a: number, b: number) => a - b);
  const {
    settled,
    settled_amount: settledAmount,
    captured_amount: capturedAmount,
  } = await get(m, `/transactions/${id}`);
  return { amounts, settled, settledAmount, capturedAmount };
}

/** The settlement jobs of a merchant account, as the captures enqueued them. */
async function ordersOf(
  m: string,
): Promise<Array<{ id: string; order: SettlementOrder; status: string; attempts: number }>> {
  const rows = await t.deps.db
    .selectFrom('jobs')
    .select(['id', 'payload', 'status', 'attempts'])
    .where('name', '=', 'settle-transaction')
    .where(sql<boolean>`payload->>'merchant_account_id' = ${m}`)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    order: row.payload as SettlementOrder,
    status: row.status,
    attempts: row.attempts,
  }));
}

/** Makes `settlements` refuse the records of `transactionIds` (a settlement that fails), until `lift()`. */
async function refuseSettlementsOf(transactionIds: string[]) {
  const name = `svc_test_refuse_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const ids = transactionIds.map((id) => `'${id}'`).join(', ');
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW.transaction_id IN (${ids}) THEN RAISE EXCEPTION 'settlement refused by the test'; END IF;
         RETURN NEW; END $$`,
    )
    .execute(t.deps.db);
  await sql
    .raw(`CREATE TRIGGER ${name} BEFORE INSERT ON settlements FOR EACH ROW EXECUTE FUNCTION ${name}()`)
    .execute(t.deps.db);
  return async () => {
    await sql.raw(`DROP TRIGGER ${name} ON settlements`).execute(t.deps.db);
    await sql.raw(`DROP FUNCTION ${name}()`).execute(t.deps.db);
  };
}

describe('happy', () => {
  it('settles many captures of two merchant accounts once each, the partial captures of one transaction too', async () => {
    const [{ merchantAccountId: a }, { merchantAccountId: b }] = [
      await merchantWithMockCard(t),
      await merchantWithMockCard(t, { fields: MULTI }),
    ];
    const ids: string[] = [];
    for (let n = 0; n < 30; n++) ids.push(await captured(n % 2 ? a : b, 1000 + n));
    const multi = await authorized(t, b);
    for (const amount of [300, 200])
      expect(
        (
          await t.request({
            method: 'POST',
            url: `/transactions/${multi.id}/capture`,
            merchantAccountId: b,
            payload: { amount, final: false },
          })
        ).statusCode,
      ).toBe(200);
    await t.deps.queue.drain(t.deps);
    for (const [n, id] of ids.entries())
      expect(await settledOf(n % 2 ? a : b, id)).toEqual({
        amounts: [1000 + n],
        settled: true,
        settledAmount: 1000 + n,
        capturedAmount: 1000 + n,
      });
    expect(await settledOf(b, multi.id)).toEqual({
      amounts: [200, 300],
      settled: true,
      settledAmount: 500,
      capturedAmount: 500,
    });
    // Written by one batch (one report time), not one by one.
    const posted = new Set<string>();
    for (const [n, id] of ids.entries())
      for (const s of (await get(n % 2 ? a : b, `/transactions/${id}/settlements`)).items) posted.add(s.posted_at);
    expect(posted.size).toBeLessThanOrEqual(2);
    const jobs = [...(await ordersOf(a)), ...(await ordersOf(b))];
    expect(jobs.every((job) => job.status === 'succeeded' && job.attempts === 1)).toBe(true);
    // One history entry of the settlement each.
    const events = (await get(b, `/transactions/${multi.id}/events`)).items.filter(
      (e: { name: string }) => e.name === 'payment-connector-report-transaction-settled',
    );
    expect(events).toHaveLength(2);
  });

  it('writes the webhook events, dispute lines and history as one settlement each would', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const plain = [await captured(m), await captured(m, 1500)];
    const disputed = await createTransaction(t, m, { intent: 'capture', payment_method: card('4000000000000630') });
    const refunded = await captured(m, 2000);
    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${refunded}/refunds`,
      merchantAccountId: m,
      payload: { amount: 500 },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    // One batch (a fallback to one by one would warn), then the jobs: each a no-op by then.
    const settledEvents = await settledBy([...plain, disputed.json().id, refunded], async () => {
      const orders = (await ordersOf(m)).map((job) => ({ jobId: job.id, order: job.order }));
      expect((await settleMany(t.deps, orders, strict)).size).toBe(0);
      await t.deps.queue.drain(t.deps);
    });
    expect(settledEvents).toEqual([
      { transactionId: plain[0], settled: ['transaction.settled'] },
      { transactionId: plain[1], settled: ['transaction.settled'] },
      {
        transactionId: disputed.json().id,
        settled: ['transaction.chargeback_reversed', 'transaction.disputed', 'transaction.settled'],
      },
      // The capture's settlement, then the refund's.
      { transactionId: refunded, settled: ['transaction.settled', 'transaction.settled'] },
    ]);
    expect(await get(m, `/transactions/${disputed.json().id}`)).toMatchObject({
      disputed: true,
      settled: true,
      settled_amount: 1000,
    });
    expect((await get(m, `/transactions/${disputed.json().id}/chargebacks`)).items).toHaveLength(1);
    expect((await get(m, `/transactions/${disputed.json().id}/chargeback-reversals`)).items).toHaveLength(1);
    expect(await settledOf(m, refunded)).toMatchObject({ amounts: [-500, 2000], settledAmount: 1500 });
    expect(await settledOf(m, plain[1]!)).toMatchObject({ amounts: [1500], settledAmount: 1500 });

    /** The webhook events of kinds `transaction.settled`/`disputed`/`chargeback_reversed` each transaction got from `run`. */
    async function settledBy(ids: string[], run: () => Promise<unknown>) {
      await run();
      const rows = await t.deps.db
        .selectFrom('events')
        .select(['resource_id', 'kind'])
        .where('merchant_account_id', '=', m)
        .where('kind', 'in', ['transaction.settled', 'transaction.disputed', 'transaction.chargeback_reversed'])
        .execute();
      return ids.map((id) => ({
        transactionId: id,
        settled: rows
          .filter((r) => r.resource_id === id)
          .map((r) => r.kind)
          .sort(),
      }));
    }
  });

  it('two server processes draining at once settle each capture once', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ids: string[] = [];
    for (let n = 0; n < 40; n++) ids.push(await captured(m, 500 + n));
    let otherDb = t.deps.db;
    let close = async () => {};
    if (t.deps.dbKind === 'postgres') {
      const handle = await openDb({
        databaseUrl: t.config.databaseUrl,
        dataDir: t.config.dataDir,
        schema: t.schema!,
        poolSize: 5,
      });
      [otherDb, close] = [handle.db, () => handle.close()];
    }
    const other = new JobQueue({ pollMs: 50, concurrency: 4 }, JOBS, silent);
    try {
      await Promise.all([t.deps.queue.drain(t.deps), other.drain({ ...t.deps, db: otherDb })]);
    } finally {
      await close();
    }
    for (const [n, id] of ids.entries()) expect((await settledOf(m, id)).amounts).toEqual([500 + n]);
    expect((await ordersOf(m)).every((job) => job.status === 'succeeded')).toBe(true);
  });

  it('a batch run again, or twice at once (a lease ran out), writes nothing more', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ids = [await captured(m), await captured(m, 2000), await captured(m, 3000)];
    const keys = (await ordersOf(m)).map(({ order }) => ({
      merchantAccountId: m,
      transactionId: order.transaction_id,
      captureAttemptId: order.capture_id ?? null,
    }));
    await Promise.all([settleCaptures(t.deps, keys), settleCaptures(t.deps, [...keys].reverse())]);
    await settleCaptures(t.deps, keys);
    await t.deps.queue.drain(t.deps);
    expect((await Promise.all(ids.map((id) => settledOf(m, id)))).map((s) => s.amounts)).toEqual([
      [1000],
      [2000],
      [3000],
    ]);
  });
});

describe('errors', () => {
  it('retries a failing settlement on its own, without holding up or repeating the others of its batch', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ids: string[] = [];
    for (let n = 0; n < 10; n++) ids.push(await captured(m, 100 + n));
    const lift = await refuseSettlementsOf([ids[4]!]);
    try {
      await t.deps.queue.drain(t.deps);
    } finally {
      await lift();
    }
    for (const [n, id] of ids.entries()) expect((await settledOf(m, id)).amounts).toEqual(n === 4 ? [] : [100 + n]);
    const failing = (await ordersOf(m)).find((job) => job.order.transaction_id === ids[4]);
    const row = await t.deps.db.selectFrom('jobs').selectAll().where('id', '=', failing!.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: expect.stringContaining('settlement refused'),
    });
    expect(new Date(row.run_at).getTime()).toBeGreaterThan(Date.now());
    // Its backoff over, it settles once; the others stay settled once.
    await t.deps.db
      .updateTable('jobs')
      .set({ run_at: new Date(Date.now() - 1000) })
      .where('id', '=', row.id)
      .execute();
    await t.deps.queue.drain(t.deps);
    for (const [n, id] of ids.entries()) expect((await settledOf(m, id)).amounts).toEqual([100 + n]);
    expect((await ordersOf(m)).every((job) => job.status === 'succeeded')).toBe(true);
  });

  it('a batch that fails writes nothing of any of its settlements', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ids = [await captured(m), await captured(m), await captured(m)];
    const keys = ids.map((id) => ({ merchantAccountId: m, transactionId: id, captureAttemptId: null }));
    const lift = await refuseSettlementsOf([ids[2]!]);
    try {
      await expect(settleCaptures(t.deps, keys)).rejects.toThrow();
    } finally {
      await lift();
    }
    for (const id of ids) expect(await settledOf(m, id)).toMatchObject({ amounts: [], settled: false });
    const events = (await get(m, `/transactions/${ids[0]}/events`)).items.map((e: { name: string }) => e.name);
    expect(events).not.toContain('payment-connector-report-transaction-settled');
  });

  it('a worker that died between claim and finish, its batch written or not, leaves each capture settled once', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) ids.push(await captured(m, 700 + n));
    // A dead worker's claim of every due settlement (a lease of 1 ms), its batch of half of them committed.
    const claimed = await pollJobs(t.deps.db, {
      workerId: 'dead-worker',
      finished: [],
      batch: 1000,
      leaseMs: 1,
      names: ['settle-transaction'],
    });
    const mine = claimed.filter((job) => (job.payload as SettlementOrder).merchant_account_id === m);
    expect(mine).toHaveLength(6);
    const done = mine.slice(0, 3).map((job) => job.payload as SettlementOrder);
    await settleCaptures(
      t.deps,
      done.map((o) => ({
        merchantAccountId: m,
        transactionId: o.transaction_id,
        captureAttemptId: o.capture_id ?? null,
      })),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    await t.deps.queue.drain(t.deps);
    for (const [n, id] of ids.entries()) expect((await settledOf(m, id)).amounts).toEqual([700 + n]);
    expect((await ordersOf(m)).every((job) => job.status === 'succeeded' && job.attempts === 2)).toBe(true);
  });
});

describe('property', () => {
  it('each capture is settled exactly once whatever the batch boundaries, order and repeated runs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 3 }), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
        async (transactions, cuts, repeats) => {
          const { merchantAccountId: m } = await merchantWithMockCard(t, { fields: MULTI });
          const ids: string[] = [];
          for (const captures of transactions) {
            const txn = await authorized(t, m, { amount: 1000 });
            ids.push(txn.id);
            for (const amount of captures)
              await t.request({
                method: 'POST',
                url: `/transactions/${txn.id}/capture`,
                merchantAccountId: m,
                payload: { amount, final: false },
              });
          }
          const jobs = await ordersOf(m);
          // Shuffled, some run twice (a lease ran out), cut into batches at random.
          const runs = jobs.flatMap((job, i) => (repeats[i % 30] ? [job, job] : [job]));
          runs.sort((x, y) => (cuts[runs.indexOf(x) % 30]! % 7) - (cuts[runs.indexOf(y) % 30]! % 7));
          let at = 0;
          for (let n = 0; at < runs.length; n++) {
            const size = 1 + (cuts[n % 30]! % 5);
            const failures = await settleMany(
              t.deps,
              runs.slice(at, at + size).map((job) => ({ jobId: job.id, order: job.order })),
              strict,
            );
            expect(failures.size).toBe(0);
            at += size;
          }
          for (const [i, id] of ids.entries()) {
            const state = await settledOf(m, id);
            expect(state.amounts).toEqual([...transactions[i]!].sort((x, y) => x - y));
            expect(state.settledAmount).toBe(state.capturedAmount);
          }
          await t.deps.db
            .deleteFrom('jobs')
            .where(
              'id',
              'in',
              jobs.map((job) => job.id),
            )
            .execute();
        },
      ),
      { numRuns: 12 },
    );
  });
});
