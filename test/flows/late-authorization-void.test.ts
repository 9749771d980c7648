import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type VoidRequest,
} from '../../src/connectors/connector.ts';
import { voidLateAuthorizationNow } from '../../src/modules/transactions/void/late-void.service.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { subscribeToEvents } from '../helpers/event-subscription.ts';
import { authorized, card, merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * An authorization that answers after its transaction was closed is voided at the provider by the
 * void-late-authorization job; the transaction stays as it was (decision 0053).
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

const TIMEOUT_CARD = '4000000000000408';
const later = () => new Date(Date.now() + 10 * 60_000);
const mock = () =>
  t.deps.connectors.get('mock-card') as unknown as {
    authorize(r: AuthorizeRequest): Promise<AuthorizeOutcome>;
    void(r: VoidRequest): Promise<unknown>;
  };
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
const attemptsOf = (id: string) =>
  t.deps.db
    .selectFrom('transaction_attempts')
    .select([
      'id',
      'operation',
      'status',
      'error_code',
      'provider_reference',
      'compensates_attempt_id',
      'next_check_at',
    ])
    .where('transaction_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const eventNames = async (m: string, id: string) =>
  (await get(m, `/transactions/${id}/events`)).items.map((e: { name: string }) => e.name);

/**
 * A transaction whose authorization timed out, then canceled: its attempt is still open. The
 * merchant account has a webhook subscription, so what it was told can be read from its events.
 */
async function canceledAfterTimeout() {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  await subscribeToEvents(t, m);
  const txn = await authorized(t, m, { payment_method: card(TIMEOUT_CARD) });
  expect(txn.status).toBe('processing');
  const cancel = await t.request({ method: 'POST', url: `/transactions/${txn.id}/cancel`, merchantAccountId: m });
  expect(cancel.statusCode, cancel.body).toBe(200);
  return { m, id: txn.id as string };
}

describe('happy', () => {
  it('reconciliation finds the canceled transaction authorized: the job voids it, the transaction stays canceled', async () => {
    const { m, id } = await canceledAfterTimeout();
    const voids = vi.spyOn(mock(), 'void');
    await reconcileDueAttempts(t.deps, later());
    const [authorization] = await attemptsOf(id);
    expect(authorization).toMatchObject({
      operation: 'authorize',
      status: 'succeeded',
      error_code: 'late_outcome',
      provider_reference: expect.stringMatching(/^mock_txn_/),
    });
    expect(voids).not.toHaveBeenCalled();

    await t.deps.queue.drain(t.deps);
    const attempts = await attemptsOf(id);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]).toMatchObject({
      operation: 'void',
      status: 'succeeded',
      compensates_attempt_id: authorization!.id,
      provider_reference: authorization!.provider_reference,
      next_check_at: null,
    });
    // The attempt id is the provider's idempotency key; the provider's reference names the payment.
    expect(voids).toHaveBeenCalledTimes(1);
    expect(voids.mock.calls[0]![0]).toMatchObject({
      idempotencyKey: attempts[1]!.id,
      providerTransactionId: authorization!.provider_reference,
    });

    expect(await get(m, `/transactions/${id}`)).toMatchObject({
      status: 'authorization_failed',
      error_code: 'canceled',
      authorized_amount: 0,
      voided_at: null,
    });
    const names = await eventNames(m, id);
    expect(names).toContain('transaction-late-authorization-void-scheduled');
    expect(names).toContain('payment-connector-response-transaction-void-succeeded');
    // The merchant was told "canceled"; no transaction.voided follows.
    const kinds = (await t.deps.db.selectFrom('events').select('kind').where('resource_id', '=', id).execute()).map(
      (e) => e.kind,
    );
    expect(kinds).toContain('transaction.canceled');
    expect(kinds).not.toContain('transaction.voided');
    expect(kinds.filter((k) => k === 'transaction.updated')).toHaveLength(0);
    // The actions list holds routing decisions only (an enum of the API), not connector calls.
    expect((await get(m, `/transactions/${id}/actions`)).items.map((a: { id: string }) => a.id)).toEqual([
      'route-transaction',
    ]);
  });

  it('an authorization answered while the transaction was being canceled is voided', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const connector = mock();
    const real = connector.authorize.bind(connector);
    let canceled = 0;
    vi.spyOn(connector, 'authorize').mockImplementationOnce(async (request) => {
      const list = await t.request({ method: 'GET', url: '/transactions', merchantAccountId: m });
      const id = list.json().items[0].id;
      canceled = (await t.request({ method: 'POST', url: `/transactions/${id}/cancel`, merchantAccountId: m }))
        .statusCode;
      return real(request);
    });
    const txn = await authorized(t, m);
    expect(canceled).toBe(200);
    expect(txn).toMatchObject({ status: 'authorization_failed', error_code: 'canceled' });
    const [authorization] = await attemptsOf(txn.id);
    expect(authorization).toMatchObject({
      status: 'succeeded',
      error_code: 'late_outcome',
      provider_reference: expect.stringMatching(/^mock_txn_/),
    });
    await t.deps.queue.drain(t.deps);
    expect((await attemptsOf(txn.id))[1]).toMatchObject({
      operation: 'void',
      status: 'succeeded',
      compensates_attempt_id: authorization!.id,
    });
    expect((await get(m, `/transactions/${txn.id}`)).status).toBe('authorization_failed');
  });

  it('a void that times out is left unknown, and reconciliation asks again', async () => {
    const { m, id } = await canceledAfterTimeout();
    await reconcileDueAttempts(t.deps, later());
    const original = mock().void.bind(mock());
    // The processor received the void; its answer was lost (a provider status query finds it).
    vi.spyOn(mock(), 'void').mockImplementationOnce(async (request) => {
      await original(request);
      throw new ConnectorError('timeout', 'slow');
    });
    await t.deps.queue.drain(t.deps);
    const open = (await attemptsOf(id))[1]!;
    expect(open).toMatchObject({ operation: 'void', status: 'unknown', error_code: 'timeout' });
    expect(open.next_check_at).not.toBeNull();
    await reconcileDueAttempts(t.deps, later());
    expect((await attemptsOf(id))[1]).toMatchObject({ status: 'succeeded', next_check_at: null });
    expect(await get(m, `/transactions/${id}`)).toMatchObject({
      status: 'authorization_failed',
      error_code: 'canceled',
    });
  });
});

describe('errors', () => {
  it('a refused void is recorded declined; the transaction does not change', async () => {
    const { m, id } = await canceledAfterTimeout();
    await reconcileDueAttempts(t.deps, later());
    vi.spyOn(mock(), 'void').mockResolvedValueOnce({
      status: 'declined',
      errorCode: 'void_declined',
      rawResponseCode: '12',
      rawResponseDescription: 'Invalid transaction',
    });
    await t.deps.queue.drain(t.deps);
    expect((await attemptsOf(id))[1]).toMatchObject({
      operation: 'void',
      status: 'declined',
      error_code: 'void_declined',
      next_check_at: null,
    });
    expect(await eventNames(m, id)).toContain('payment-connector-response-transaction-void-declined');
    expect((await get(m, `/transactions/${id}`)).status).toBe('authorization_failed');
  });

  it('the job running again sends no second void', async () => {
    const { m, id } = await canceledAfterTimeout();
    await reconcileDueAttempts(t.deps, later());
    await t.deps.queue.drain(t.deps);
    const [authorization] = await attemptsOf(id);
    const voids = vi.spyOn(mock(), 'void');
    await voidLateAuthorizationNow(t.deps, m, id, authorization!.id, { warn: () => undefined, info: () => undefined });
    expect(voids).not.toHaveBeenCalled();
    expect(await attemptsOf(id)).toHaveLength(2);
  });

  it('a late decline sends no void', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const connector = mock();
    vi.spyOn(connector, 'authorize').mockImplementationOnce(async (request) => {
      const id = (await t.request({ method: 'GET', url: '/transactions', merchantAccountId: m })).json().items[0].id;
      await t.request({ method: 'POST', url: `/transactions/${id}/cancel`, merchantAccountId: m });
      return {
        status: 'declined',
        errorCode: 'do_not_honor',
        rawResponseCode: '05',
        rawResponseDescription: 'Do not honor',
        providerTransactionId: `x_${request.idempotencyKey}`,
        authResponseCode: null,
        avsResponseCode: null,
        cvvResponseCode: null,
        schemeTransactionId: null,
        merchantAdviceCode: null,
        approvalUrl: null,
        additionalIdentifiers: {},
      };
    });
    const txn = await authorized(t, m);
    await t.deps.queue.drain(t.deps);
    expect(await attemptsOf(txn.id)).toEqual([
      expect.objectContaining({ operation: 'authorize', status: 'failed', error_code: 'late_outcome' }),
    ]);
  });
});

describe('security', () => {
  it('the job payload carries ids only', async () => {
    const { id } = await canceledAfterTimeout();
    await reconcileDueAttempts(t.deps, later());
    const jobs = await t.deps.db.selectFrom('jobs').selectAll().where('name', '=', 'void-late-authorization').execute();
    const job = jobs.find((j) => (j.payload as { transaction_id?: string }).transaction_id === id)!;
    expect(Object.keys(job.payload as object).sort()).toEqual(['attempt_id', 'merchant_account_id', 'transaction_id']);
    expect(JSON.stringify(job.payload)).not.toContain(TIMEOUT_CARD);
  });
});
