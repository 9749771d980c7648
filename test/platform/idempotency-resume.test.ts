import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MockCardConnector } from '../../src/connectors/mock/mock-card.connector.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { postPayout } from '../helpers/payouts.ts';
import { createTransaction, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * A retry of POST /transactions or POST /payouts whose first request died (or failed with a 5xx)
 * after recording its resource answers with that resource: no second transaction, no second
 * connector call (decision 0081).
 */

let t: TestApp;
let connector: MockCardConnector;
beforeAll(async () => {
  t = await buildTestApp();
  connector = t.deps.connectors.get('mock-card') as MockCardConnector;
});
afterAll(async () => t.close());

/** A connector call that does not return until `end` (the process "dies" meanwhile). */
function hanging(): { promise: Promise<never>; end: () => void } {
  let end!: () => void;
  const promise = new Promise<never>((_, reject) => (end = () => reject(new Error('the call ends after the test'))));
  return { promise, end };
}

const keyRow = (merchantAccountId: string, key: string) =>
  t.deps.db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('key', '=', key)
    .executeTakeFirst();

/** What a process killed mid-request leaves once its lease has run out. */
const expireLease = (merchantAccountId: string, key: string) =>
  t.deps.db
    .updateTable('idempotency_keys')
    .set({ locked_until: new Date(Date.now() - 1000) })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('key', '=', key)
    .execute();

const countRows = async (table: 'transactions' | 'payouts', merchantAccountId: string) =>
  Number(
    (
      await t.deps.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('merchant_account_id', '=', merchantAccountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

type Post = (merchantAccountId: string, paymentServiceId: string, key: string) => ReturnType<TestApp['request']>;
const postTransaction: Post = (m, _service, key) => createTransaction(t, m, {}, { 'idempotency-key': key });
const postPayoutWithKey: Post = (m, service, key) => postPayout(t, m, service, {}, { 'idempotency-key': key });

const cases = [
  {
    name: 'POST /transactions',
    table: 'transactions' as const,
    method: 'authorize' as const,
    post: postTransaction,
    resumedStatus: 'processing',
  },
  {
    name: 'POST /payouts',
    table: 'payouts' as const,
    method: 'payout' as const,
    post: postPayoutWithKey,
    resumedStatus: 'pending',
  },
];

/** The retry resumes the one recorded resource; a further retry replays that answer byte for byte. */
async function expectResumed(
  c: (typeof cases)[number],
  m: string,
  service: string,
  key: string,
  calls: { mock: { calls: unknown[] } },
) {
  const bound = await keyRow(m, key);
  expect(bound?.resource_id).toBeTruthy();
  const retry = await c.post(m, service, key);
  expect(retry.statusCode, retry.body).toBe(201);
  expect(retry.json()).toMatchObject({ id: bound!.resource_id, status: c.resumedStatus });
  expect(retry.headers['idempotent-replayed']).toBe('true');
  expect(await countRows(c.table, m)).toBe(1);
  expect(calls.mock.calls).toHaveLength(1);
  const again = await c.post(m, service, key);
  expect(again.statusCode).toBe(201);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toBe(retry.body);
  expect(calls.mock.calls).toHaveLength(1);
}

describe('happy', () => {
  for (const c of cases) {
    it(`${c.name}: a retry after the process died past phase 1 answers with the recorded resource`, async () => {
      const { merchantAccountId: m, paymentServiceId: service } = await merchantWithMockCard(t);
      const key = `crash-${c.table}`;
      const call = hanging();
      const spy = vi.spyOn(connector, c.method).mockImplementation(() => call.promise);
      try {
        const first = c.post(m, service, key);
        await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
        await expireLease(m, key);
        await expectResumed(c, m, service, key, spy);
        call.end();
        await first;
      } finally {
        spy.mockRestore();
      }
    });

    it(`${c.name}: a retry after a 5xx past phase 1 answers with the recorded resource`, async () => {
      const { merchantAccountId: m, paymentServiceId: service } = await merchantWithMockCard(t);
      const key = `five-hundred-${c.table}`;
      // An answer the service cannot read: the request fails with a 500 after the connector call.
      const spy = vi.spyOn(connector, c.method).mockResolvedValue(null as never);
      try {
        const first = await c.post(m, service, key);
        expect(first.statusCode, first.body).toBe(500);
        expect(await keyRow(m, key)).toMatchObject({ state: 'processing' });
        await expectResumed(c, m, service, key, spy);
      } finally {
        spy.mockRestore();
      }
    });
  }

  it('runs the request again when the claim it takes over has no resource (a crash before phase 1)', async () => {
    const { merchantAccountId: m, paymentServiceId: service } = await merchantWithMockCard(t);
    const key = 'crash-before-phase-1';
    const call = hanging();
    const spy = vi.spyOn(connector, 'authorize').mockImplementationOnce(() => call.promise);
    try {
      const first = postTransaction(m, service, key);
      await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
      // The key as a request that died before recording its transaction leaves it.
      await t.deps.db
        .updateTable('idempotency_keys')
        .set({ resource_id: null, locked_until: new Date(Date.now() - 1000) })
        .where('merchant_account_id', '=', m)
        .where('key', '=', key)
        .execute();
      const retry = await postTransaction(m, service, key);
      expect(retry.statusCode, retry.body).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(retry.json().status).toBe('authorization_succeeded');
      expect(spy).toHaveBeenCalledTimes(2);
      expect((await keyRow(m, key))?.resource_id).toBe(retry.json().id);
      call.end();
      await first;
    } finally {
      spy.mockRestore();
    }
  });
});
