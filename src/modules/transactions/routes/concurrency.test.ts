import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { interleaveStatements, type Interleaving } from '../../../../test/helpers/interleave.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * Concurrent captures, refunds and voids of one transaction never exceed its limits: each reserves
 * its amount before the connector call (in one guarded statement, or under the row lock when the
 * row moved) and records the answer relative to what the others did. Runs on PGlite and on PostgreSQL.
 *
 * On PGlite the requests interleave statement by statement only because `interleaveStatements`
 * makes each statement wait a turn of the event loop: PGlite answers without I/O, so requests
 * "at once" otherwise ran one after another, and with the guarded update and the CHECK removed
 * every test here still passed (decision 0114). The first
 * test checks that the interleaving happens. Parallel transactions and row locks exist only on
 * PostgreSQL (TEST_DATABASE_URL), a run CI requires.
 */
let t: TestApp;
let m: string;
let interleaving: Interleaving;
beforeAll(async () => {
  t = await buildTestApp();
  interleaving = await interleaveStatements(t);
  ({ merchantAccountId: m } = await merchantWithMockCard(t, {
    fields: [
      { key: 'merchant_id', value: 'm-1' },
      { key: 'multi_capture_enabled', value: 'true' },
    ],
  }));
  // Webhook snapshots are read, and the races run with the outbox's deliveries and jobs as a subscriber's do.
  await subscribeToEvents(t, m);
});
afterAll(async () => {
  interleaving.restore();
  await t.close();
});

const post = (url: string, payload: object) => t.request({ method: 'POST', url, merchantAccountId: m, payload });

/** The transaction's amounts, and the sums of its succeeded capture attempts and refunds. */
async function ledger(id: string) {
  const row = await t.deps.db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_account_id', '=', m)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  const captures = await t.deps.db
    .selectFrom('transaction_attempts')
    .select('amount')
    .where('transaction_id', '=', id)
    .where('operation', '=', 'capture')
    .where('status', '=', 'succeeded')
    .execute();
  const refunds = await t.deps.db
    .selectFrom('refunds')
    .select('amount')
    .where('transaction_id', '=', id)
    .where('status', '=', 'succeeded')
    .execute();
  const sum = (rows: Array<{ amount: number | string | bigint }>) => rows.reduce((s, r) => s + Number(r.amount), 0);
  return {
    limit: Number(row.capture_limit),
    captured: Number(row.captured_amount),
    refunded: Number(row.refunded_amount),
    captureReserved: Number(row.capture_reserved),
    refundReserved: Number(row.refund_reserved),
    capturedByAttempts: sum(captures),
    refundedByRecords: sum(refunds),
  };
}

function expectInvariants(l: Awaited<ReturnType<typeof ledger>>) {
  expect(l.captured).toBeLessThanOrEqual(l.limit);
  expect(l.refunded).toBeLessThanOrEqual(l.captured);
  expect(l.captured).toBe(l.capturedByAttempts);
  expect(l.refunded).toBe(l.refundedByRecords);
  expect(l.captureReserved).toBe(0);
  expect(l.refundReserved).toBe(0);
}

/**
 * Holds the mock connector's next `operation` call at the provider until `release`; `reached`
 * resolves once the call has started (its reservation is committed by then).
 */
function hold(operation: 'capture' | 'void') {
  const connector = t.deps.connectors.get('mock-card') as unknown as Record<
    string,
    (request: unknown) => Promise<unknown>
  >;
  const original = connector[operation]!;
  let release!: () => void;
  let reached!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started = new Promise<void>((resolve) => (reached = resolve));
  connector[operation] = async (request) => {
    delete connector[operation];
    reached();
    await released;
    return original.call(connector, request);
  };
  return { reached: started, release };
}

const AMOUNTS = Array.from({ length: 20 }, (_, i) => 40 + ((i * 37) % 90)); // 20 amounts, 40..129, summing above 1000

describe('happy', () => {
  // What makes the tests below able to fail on PGlite (test/helpers/interleave.ts): without it the
  // requests there ran one after another, and a capture that trusted its stale read passed them all.
  it.skipIf(usesPostgres())(
    'on PGlite too, concurrent captures interleave: both read the transaction before either reserves',
    async () => {
      const txn = await authorized(t, m);
      interleaving.statements.length = 0;
      await Promise.all([
        post(`/transactions/${txn.id}/capture`, { amount: 100, final: false }),
        post(`/transactions/${txn.id}/capture`, { amount: 200, final: false }),
      ]);
      const firstWrite = interleaving.statements.findIndex((sql) => /update "transactions"/.test(sql));
      const before = interleaving.statements.slice(0, firstWrite);
      const readsBefore = before.filter((sql) => /^select \* from "transactions"/.test(sql));
      // Or both reads in one grouped statement (src/db/group-commit.ts groups two or more members only).
      const groupedRead = before.some((sql) => /^select "transactions"\.\*, "v"\."svc_member"/.test(sql));
      expect(firstWrite).toBeGreaterThan(0);
      expect(groupedRead || readsBefore.length === 2, interleaving.statements.join('\n')).toBe(true);
    },
  );

  it('20 concurrent captures never capture more than authorized', async () => {
    expect(AMOUNTS.reduce((a, b) => a + b, 0)).toBeGreaterThan(1000);
    const txn = await authorized(t, m);
    const results = await Promise.all(
      AMOUNTS.map((amount) => post(`/transactions/${txn.id}/capture`, { amount, final: false })),
    );
    for (const r of results) expect([200, 400], r.body).toContain(r.statusCode);
    const succeeded = results.map((r, i) => (r.statusCode === 200 ? AMOUNTS[i]! : 0)).reduce((a, b) => a + b, 0);
    expect(results.some((r) => r.statusCode === 400)).toBe(true);
    const l = await ledger(txn.id);
    expect(l.captured).toBe(succeeded);
    expect(l.captured).toBeLessThanOrEqual(1000);
    expectInvariants(l);
  });

  it('20 concurrent refunds never refund more than captured', async () => {
    const txn = await authorized(t, m);
    expect((await post(`/transactions/${txn.id}/capture`, { amount: 1000 })).statusCode).toBe(200);
    const results = await Promise.all(AMOUNTS.map((amount) => post(`/transactions/${txn.id}/refunds`, { amount })));
    for (const r of results) expect([201, 400], r.body).toContain(r.statusCode);
    const succeeded = results.map((r, i) => (r.statusCode === 201 ? AMOUNTS[i]! : 0)).reduce((a, b) => a + b, 0);
    const l = await ledger(txn.id);
    expect(l.refunded).toBe(succeeded);
    expect(l.refunded).toBeLessThanOrEqual(1000);
    expectInvariants(l);
  });

  it('of 2 concurrent final captures exactly one succeeds', async () => {
    const txn = await authorized(t, m);
    const results = await Promise.all([
      post(`/transactions/${txn.id}/capture`, { amount: 300 }),
      post(`/transactions/${txn.id}/capture`, { amount: 400 }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
    const won = results.findIndex((r) => r.statusCode === 200);
    const l = await ledger(txn.id);
    expect(l.captured).toBe(won === 0 ? 300 : 400);
    expectInvariants(l);
  });

  // A late authorization (after a cancel) is recorded on the attempt; the transaction stays canceled.
  it('a cancel during the authorization call leaves the creation a 201 of the canceled transaction', async () => {
    const connector = t.deps.connectors.get('mock-card');
    const original = connector.authorize.bind(connector);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    connector.authorize = async (request) => {
      await gate;
      return original(request);
    };
    try {
      const { merchantAccountId: own } = await merchantWithMockCard(t);
      await subscribeToEvents(t, own);
      const creating = t.request({
        method: 'POST',
        url: '/transactions',
        merchantAccountId: own,
        payload: {
          amount: 1000,
          currency: 'USD',
          payment_method: {
            method: 'card',
            number: '4111111111111111',
            expiration_date: '12/40',
            security_code: '123',
          },
        },
      });
      let id: string | undefined;
      for (let i = 0; i < 100 && !id; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        id = (
          await t.deps.db
            .selectFrom('transactions')
            .select('id')
            .where('merchant_account_id', '=', own)
            .executeTakeFirst()
        )?.id;
      }
      expect(
        (await t.request({ method: 'POST', url: `/transactions/${id}/cancel`, merchantAccountId: own })).statusCode,
      ).toBe(200);
      release();
      const created = await creating;
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json()).toMatchObject({ id, status: 'authorization_failed', error_code: 'canceled' });
      // The one-statement answer found the transaction moved and wrote nothing (no created event, no answer applied).
      const kinds = (await t.deps.db.selectFrom('events').select('kind').where('resource_id', '=', id!).execute()).map(
        (e) => e.kind,
      );
      expect(kinds).toEqual(['transaction.canceled']);
      const attempt = await t.deps.db
        .selectFrom('transaction_attempts')
        .selectAll()
        .where('transaction_id', '=', id!)
        .where('operation', '=', 'authorize')
        .executeTakeFirstOrThrow();
      expect(attempt).toMatchObject({ status: 'succeeded', error_code: 'late_outcome' });
    } finally {
      release();
      connector.authorize = original;
    }
  });

  it('a void while a capture is at the provider is refused; the capture completes', async () => {
    const txn = await authorized(t, m);
    const gate = hold('capture');
    const capturing = post(`/transactions/${txn.id}/capture`, { amount: 400 });
    await gate.reached;
    const voided = await post(`/transactions/${txn.id}/void`, {});
    expect(voided.statusCode).toBe(400);
    expect(voided.json().message).toContain('refund it instead');
    gate.release();
    expect((await capturing).json()).toMatchObject({
      status: 'succeeded',
      transaction: { status: 'capture_succeeded', captured_amount: 400 },
    });
    const l = await ledger(txn.id);
    expect(l.captured).toBe(400);
    expectInvariants(l);
  });

  it('a capture while a void is at the provider is refused; the void completes', async () => {
    const txn = await authorized(t, m);
    const gate = hold('void');
    const voiding = post(`/transactions/${txn.id}/void`, {});
    await gate.reached;
    const captured = await post(`/transactions/${txn.id}/capture`, { amount: 400, final: false });
    expect(captured.statusCode).toBe(400);
    expect(captured.json().message).toContain('a final capture or a void has closed it');
    gate.release();
    expect((await voiding).json()).toMatchObject({
      status: 'succeeded',
      transaction: { status: 'authorization_voided', captured_amount: 0 },
    });
    const l = await ledger(txn.id);
    expect(l.captured).toBe(0);
    expectInvariants(l);
  });

  it("a refund while a further capture is at the provider: the amounts add up and the capture's events show the refund", async () => {
    const txn = await authorized(t, m);
    expect((await post(`/transactions/${txn.id}/capture`, { amount: 500, final: false })).statusCode).toBe(200);
    const gate = hold('capture');
    const capturing = post(`/transactions/${txn.id}/capture`, { amount: 200, final: false });
    await gate.reached;
    expect((await post(`/transactions/${txn.id}/refunds`, { amount: 300 })).json()).toMatchObject({
      status: 'succeeded',
      amount: 300,
    });
    gate.release();
    const res = await capturing;
    expect(res.json()).toMatchObject({
      status: 'succeeded',
      transaction: { captured_amount: 700, refunded_amount: 300 },
    });
    const stored = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(res.json().transaction).toEqual(stored);
    // The webhook snapshot of the capture is the stored transaction, the refund included.
    const [latest] = await t.deps.db
      .selectFrom('events')
      .select('payload')
      .where('resource_id', '=', txn.id)
      .where('kind', '=', 'transaction.captured')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(latest!.payload).toEqual(stored);
    const l = await ledger(txn.id);
    expect([l.captured, l.refunded]).toEqual([700, 300]);
    expectInvariants(l);
  });

  it('captures, refunds and a void started together never leave inconsistent amounts', async () => {
    for (let round = 0; round < 4; round++) {
      const txn = await authorized(t, m);
      const first =
        round % 2 === 0 ? await post(`/transactions/${txn.id}/capture`, { amount: 300, final: false }) : null;
      const results = await Promise.all([
        post(`/transactions/${txn.id}/capture`, { amount: 250, final: false }),
        post(`/transactions/${txn.id}/void`, {}),
        post(`/transactions/${txn.id}/refunds`, { amount: 100 }),
        post(`/transactions/${txn.id}/capture`, { amount: 150 }),
      ]);
      for (const r of results) expect([200, 201, 400], r.body).toContain(r.statusCode);
      const l = await ledger(txn.id);
      expectInvariants(l);
      const row = await t.deps.db
        .selectFrom('transactions')
        .select(['status', 'voided_at'])
        .where('id', '=', txn.id)
        .executeTakeFirstOrThrow();
      // A void succeeded only if nothing was captured, and then nothing was.
      if (results[1]!.statusCode === 200)
        expect([row.status, l.captured, first]).toEqual(['authorization_voided', 0, null]);
      else expect(row.voided_at).toBeNull();
    }
  });

  it('after any sequence of captures and refunds the amounts add up (property)', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('capture' as const),
        amount: fc.integer({ min: 1, max: 700 }),
        final: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('refund' as const),
        amount: fc.option(fc.integer({ min: 1, max: 700 }), { nil: undefined }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        async (rounds) => {
          const txn = await authorized(t, m);
          // Each round's operations run concurrently, the rounds one after the other.
          for (const round of rounds) {
            const results = await Promise.all(
              round.map((o) =>
                o.kind === 'capture'
                  ? post(`/transactions/${txn.id}/capture`, { amount: o.amount, final: o.final })
                  : post(`/transactions/${txn.id}/refunds`, o.amount === undefined ? {} : { amount: o.amount }),
              ),
            );
            for (const r of results) expect([200, 201, 400], r.body).toContain(r.statusCode);
          }
          expectInvariants(await ledger(txn.id));
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);
});
