import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { TEST_GIFT_CARD_PIN, TEST_GIFT_CARDS } from '../../src/connectors/gift-cards/mock-gift-card.ts';
import { createRuntime } from '../../src/deps.ts';
import { reconcileGiftCards } from '../../src/modules/transactions/reconcile/reconcile-gift-cards.service.ts';
import { reconcileDueAttempts } from '../../src/modules/transactions/reconcile/reconcile.service.ts';
import { startServer, type RunningServer } from '../helpers/spawn-server.ts';
import { apiOf, type Answer, type Api } from './support/crash-steps-cases.ts';
import { bootstrapToken, freePort, openServerDatabase } from './support/real-server.ts';

/**
 * Gift card money across a SIGKILL (issue 48 item 0; docs/security.md, "Crash safety"): a gift
 * card redemption within a payment, a gift card refund, and the give-back of a cancel, each killed
 * at every step (after its record and before the gift card service call, after the call and before
 * its answer is recorded, after the answer is recorded and before it is sent; for the cancel: after
 * its commit, and its give-back job before and after its call). The request is sent again with
 * the same idempotency key to the restarted server; then the jobs run and reconciliation runs as
 * hours later. At most one call of each kind per record, never a second record, nothing left open,
 * and every card credited exactly once. The call log (TEST_CONNECTOR_CALL_LOG) is written before
 * each call, so a call the crash cut off before it was sent is not in it.
 */
const postgresUrl = process.env.TEST_DATABASE_URL;
const CARD = TEST_GIFT_CARDS[0]!;
const giftCard = { number: CARD.number, pin: TEST_GIFT_CARD_PIN };
const card = { method: 'card', number: '4111111111111111', expiration_date: '12/40', security_code: '123' };
const TIMEOUT_CARD = { ...card, number: '4000000000000408' };

const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function ok(answer: Promise<Answer>, what: string): Promise<any> {
  const res = await answer;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

/** What each case sends, and what the case checks once everything has run. */
interface Case {
  name: string;
  point: string;
  /** The gift card service call of the request (the call log's method). */
  call: 'giftCardRedeem' | 'giftCardRefund' | 'giftCardReverse';
  /** Calls of that kind made before the kill. */
  callsAtCrash: number;
  /** The first server also runs the job queue (the give-back job dies in it). */
  worker?: boolean;
  status: number;
  prepare(api: Api): Promise<{ path: string; body?: unknown; transactionId: string | null }>;
}

const redemption = (point: string, callsAtCrash: number): Case => ({
  name: 'gift card redemption',
  point,
  call: 'giftCardRedeem',
  callsAtCrash,
  status: 201,
  prepare: async () => ({
    path: '/transactions',
    body: {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_method: card,
      gift_cards: [{ ...giftCard, amount: 400 }],
    },
    transactionId: null,
  }),
});
const refund = (point: string, callsAtCrash: number): Case => ({
  name: 'gift card refund',
  point,
  call: 'giftCardRefund',
  callsAtCrash,
  status: 201,
  prepare: async (api) => {
    const paid = await ok(
      api('POST', '/transactions', {
        amount: 1000,
        currency: 'USD',
        country: 'US',
        intent: 'capture',
        payment_method: card,
        gift_cards: [{ ...giftCard, amount: 400 }],
      }),
      'multi-tender payment',
    );
    return {
      path: `/transactions/${paid.id}/refunds`,
      body: { amount: 300, target_type: 'gift-card-redemption', target_id: paid.gift_card_redemptions[0].id },
      transactionId: paid.id,
    };
  },
});
const cancel = (point: string, callsAtCrash: number): Case => ({
  name: 'cancel give-back',
  point,
  call: 'giftCardReverse',
  callsAtCrash,
  worker: true,
  status: 200,
  prepare: async (api) => {
    // The card's network timeout keeps the payment processing (cancelable) after its gift card paid 400.
    const open = await ok(
      api('POST', '/transactions', {
        amount: 1000,
        currency: 'USD',
        country: 'US',
        payment_method: TIMEOUT_CARD,
        gift_cards: [{ ...giftCard, amount: 400 }],
      }),
      'multi-tender payment (timeout)',
    );
    return { path: `/transactions/${open.id}/cancel`, transactionId: open.id };
  },
});

// The cancel cases first: their first server runs the job queue, whose reconciliation would
// otherwise reach, 5 minutes on, an earlier case's open authorization and give back its gift card
// at the armed giftCardReverse crash point.
const CASES: Case[] = [
  cancel('after-answer:cancelTransaction', 0),
  cancel('before-call:giftCardReverse', 0),
  cancel('after-call:giftCardReverse', 1),
  redemption('before-call:giftCardRedeem', 0),
  redemption('after-call:giftCardRedeem', 1),
  redemption('after-answer:createTransaction', 1),
  refund('before-call:giftCardRefund', 0),
  refund('after-call:giftCardRefund', 1),
  refund('after-answer:createTransactionRefund', 1),
];

const methodOf = (line: string) => line.split(' ')[1]!;
const keyOf = (line: string) => line.split(' ')[2]!;

describe('security', () => {
  it(`SIGKILL at each step of a gift card redemption, refund and cancel give-back on ${postgresUrl ? 'PostgreSQL' : 'PGlite'}: resumed from the service's status query, each card credited or charged once`, async () => {
    const db = await openServerDatabase(postgresUrl);
    cleanup.push(() => db.dispose());
    const callLog = path.join(db.env.DATA_DIR!, 'connector-calls.log');
    const calls = () => (fs.existsSync(callLog) ? fs.readFileSync(callLog, 'utf8').split('\n').filter(Boolean) : []);
    const port = await freePort();
    const env = (point: string | null, worker: boolean) => ({
      ...db.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RUN_WORKER: String(worker),
      JOB_POLL_MS: '200',
      TEST_CONNECTOR_CALL_LOG: callLog,
      TEST_IDEMPOTENCY_LEASE_MS: '1000',
      ...(point ? { TEST_CRASH_POINT: point } : {}),
    });
    let server: RunningServer = await startServer(env(null, false));
    cleanup.push(() => server.stop('SIGKILL'));
    const baseUrl = () => server.baseUrl;
    const token = await bootstrapToken(db.env.DATA_DIR!);
    const problems: string[] = [];
    const done: Array<{ c: Case; merchantAccountId: string; transactionId: string }> = [];
    // GIFT_CARD_CRASH=<case name>: only that operation's cases.
    const cases = CASES.filter((c) => !process.env.GIFT_CARD_CRASH || c.name === process.env.GIFT_CARD_CRASH);

    for (const [n, c] of cases.entries()) {
      const label = `${c.name} killed at ${c.point}`;
      const check = (good: boolean, what: string) => good || problems.push(`${label}: ${what}`);
      await server.stop('SIGTERM');
      server = await startServer(env(c.point, c.worker ?? false));
      const merchantAccountId = `gift-crash-${n}-${Date.now().toString(36)}`;
      expect(
        (
          await apiOf(baseUrl, token)('POST', '/merchant-accounts', {
            id: merchantAccountId,
            display_name: `Gift card crash ${n}`,
          })
        ).status,
      ).toBe(201);
      const api = apiOf(baseUrl, token, merchantAccountId);
      expect(
        (
          await api('POST', '/payment-services', {
            display_name: 'Mock card',
            payment_service_definition_id: 'mock-card',
            fields: [{ key: 'merchant_id', value: 'm-1' }],
            accepted_currencies: ['USD'],
            accepted_countries: ['US'],
          })
        ).status,
      ).toBe(201);
      const prepared = await c.prepare(api);
      const key = randomUUID();
      const mark = calls().length;
      const died = new Promise<NodeJS.Signals | null>((resolve) =>
        server.process.once('exit', (_code, signal) => resolve(signal)),
      );
      await api('POST', prepared.path, prepared.body, key).catch(() => null);
      // The give-back job dies in the worker after the cancel was answered.
      const signal = await Promise.race([
        died,
        new Promise<string>((resolve) => setTimeout(() => resolve('alive'), 30_000)),
      ]);
      expect(signal, `${label}: the server did not die at its crash point`).toBe('SIGKILL');
      const atCrash = calls()
        .slice(mark)
        .filter((line) => methodOf(line) === c.call).length;
      check(atCrash === c.callsAtCrash, `${atCrash} ${c.call} calls before the kill, expected ${c.callsAtCrash}`);
      // A cancel's retry server runs the queue: a give-back job its commit left queued runs there, not
      // in the next case's server armed to die in it.
      server = await startServer(env(null, c.worker ?? false));
      let retry: Answer;
      const deadline = Date.now() + 30_000;
      do retry = await api('POST', prepared.path, prepared.body, key);
      while (
        retry.status === 425 &&
        Date.now() < deadline &&
        (await new Promise((resolve) => setTimeout(resolve, 250)), true)
      );
      check(retry.status === c.status, `retry answered ${retry.status} ${JSON.stringify(retry.json).slice(0, 300)}`);
      check(retry.headers.get('idempotent-replayed') === 'true', 'retry ran as a new request (no idempotent-replayed)');
      const moneyCalls = calls()
        .slice(mark)
        .filter((line) => ['giftCardRedeem', 'giftCardRefund'].includes(methodOf(line)));
      check(
        moneyCalls.filter((line) => methodOf(line) === c.call).length ===
          (c.call === 'giftCardReverse' ? 0 : c.callsAtCrash),
        `the retry called the gift card service again: ${moneyCalls.join('; ')}`,
      );
      const transactionId = prepared.transactionId ?? (retry.json?.id as string);
      const transaction = await ok(api('GET', `/transactions/${transactionId}`), 'transaction');
      check(
        transaction.gift_card_redemptions.length === 1,
        `${transaction.gift_card_redemptions.length} gift card redemptions`,
      );
      if (c.name === 'gift card redemption') {
        check(
          (await ok(api('GET', '/transactions?limit=100'), 'transactions')).items.length === 1,
          'a second transaction',
        );
        // The retry settled the redemption from the service's status query: never left `created`.
        const expected = c.callsAtCrash === 0 ? 'failed' : 'succeeded';
        check(
          transaction.gift_card_redemptions[0].status === expected,
          `redemption ${transaction.gift_card_redemptions[0].status} after the retry, expected ${expected}`,
        );
      }
      if (c.name === 'gift card refund') {
        const refunds = (await ok(api('GET', `/transactions/${transactionId}/refunds`), 'refunds')).items as Array<{
          id: string;
          status: string;
          error_code: string | null;
        }>;
        check(refunds.length === 1, `${refunds.length} refunds`);
        check(
          retry.json?.id === refunds[0]?.id,
          `the retry names ${retry.json?.id}, not the first refund ${refunds[0]?.id}`,
        );
        const expected = c.callsAtCrash === 0 ? 'declined' : 'succeeded';
        check(refunds[0]?.status === expected, `refund ${refunds[0]?.status} after the retry, expected ${expected}`);
        check(
          transaction.gift_card_redemptions[0].refunded_amount === (expected === 'succeeded' ? 300 : 0),
          `redemption refunded_amount ${transaction.gift_card_redemptions[0].refunded_amount}`,
        );
      }
      if (c.worker && c.point.startsWith('after-answer')) {
        const redemptionId = transaction.gift_card_redemptions[0].id as string;
        const until = Date.now() + 30_000;
        while (!calls().some((line) => keyOf(line) === `reverse:${redemptionId}`) && Date.now() < until)
          await new Promise((resolve) => setTimeout(resolve, 200));
      }
      process.stdout.write(`[gift card crash] ${label}: retried\n`);
      done.push({ c, merchantAccountId, transactionId });
    }
    expect(await server.stop('SIGTERM')).toBe(0);

    // The jobs the dead processes held (their leases waited out), then reconciliation as hours later.
    const runtime = await createRuntime(
      loadConfig({ ...db.env, LOG_LEVEL: 'silent', TEST_CONNECTOR_CALL_LOG: callLog }),
    );
    cleanup.push(() => runtime.close());
    await sql`UPDATE jobs SET locked_until = now() - interval '1 second' WHERE status = 'running'`.execute(
      runtime.deps.db,
    );
    const mark = calls().length;
    await runtime.deps.queue.drain(runtime.deps);
    const later = new Date(Date.now() + 2 * 3600 * 1000);
    await reconcileDueAttempts(runtime.deps, later);
    await reconcileGiftCards(runtime.deps, later);
    await runtime.deps.queue.drain(runtime.deps);
    const afterDays = new Date(later.getTime() + 3 * 24 * 3600 * 1000);
    const leftOpen =
      (await reconcileDueAttempts(runtime.deps, afterDays)) + (await reconcileGiftCards(runtime.deps, afterDays));
    // Afterwards only status queries and give-backs (gift card reversals, the void of a late authorization): nothing is charged, redeemed or refunded again.
    const charged = calls()
      .slice(mark)
      .filter((line) => !['sync', 'void', 'giftCardStatus', 'giftCardReverse'].includes(methodOf(line)));
    const app = await buildApp(runtime.deps);
    cleanup.push(() => app.close());
    for (const { c, merchantAccountId, transactionId } of done) {
      const label = `${c.name} killed at ${c.point}`;
      const check = (good: boolean, what: string) => good || problems.push(`${label}: ${what}`);
      const headers = { authorization: `Bearer ${token}`, 'x-svc-merchant-account-id': merchantAccountId };
      const redemptions = await runtime.deps.db
        .selectFrom('gift_card_redemptions')
        .selectAll()
        .where('merchant_account_id', '=', merchantAccountId)
        .where('transaction_id', '=', transactionId)
        .execute();
      const row = redemptions[0]!;
      check(
        redemptions.length === 1 && row.status !== 'created' && row.reversal_status !== 'pending',
        `redemption left open: ${row.status}, reversal ${row.reversal_status}`,
      );
      const reversals = calls().filter(
        (line) => methodOf(line) === 'giftCardReverse' && keyOf(line) === `reverse:${row.id}`,
      );
      const received = await runtime.deps.db
        .selectFrom('simulator_calls')
        .select('operation')
        .where('service', '=', 'mock-gift-card')
        .where('idempotency_key', 'in', [row.id, `reverse:${row.id}`])
        .execute();
      const { status: txStatus } = (
        await app.inject({ method: 'GET', url: `/transactions/${transactionId}`, headers })
      ).json();
      // Given back when the payment ended unpaid (canceled, or its authorization never sent), once.
      const givenBack =
        row.status === 'succeeded' && ['authorization_failed', 'authorization_declined'].includes(txStatus);
      check(
        reversals.length === (givenBack ? 1 : 0),
        `${reversals.length} reversal calls for a ${row.status} redemption of a ${txStatus} payment`,
      );
      check(
        received.filter((r) => r.operation === 'reverse').length === (givenBack ? 1 : 0),
        'the gift card service did not receive the give-back',
      );
      if (givenBack)
        check(
          row.reversal_status === 'succeeded' && Number(row.refunded_amount) === Number(row.amount),
          `reversal ${row.reversal_status}, refunded ${row.refunded_amount} of ${row.amount}`,
        );
      const balance = (
        await app.inject({ method: 'POST', url: '/gift-cards/balances', headers, payload: { items: [giftCard] } })
      ).json().items[0].balance;
      const spent = row.status === 'succeeded' && !givenBack ? Number(row.amount) - Number(row.refunded_amount) : 0;
      check(balance === CARD.balance - spent, `card balance ${balance}, expected ${CARD.balance - spent}`);
      const refunds = (
        await app.inject({ method: 'GET', url: `/transactions/${transactionId}/refunds`, headers })
      ).json().items as Array<{ id: string; status: string }>;
      for (const r of refunds) check(r.status !== 'processing', `refund ${r.id} still processing`);
      process.stdout.write(
        `[gift card crash] ${label}: redemption ${row.status}, payment ${txStatus}, reversal ${row.reversal_status ?? '-'}, balance ${balance}\n`,
      );
    }
    expect(problems).toEqual([]);
    expect(charged).toEqual([]);
    expect(leftOpen).toBe(0);
  }, 900_000);
});
