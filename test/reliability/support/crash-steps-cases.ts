import { TEST_GIFT_CARD_PIN } from '../../../src/connectors/gift-cards/mock-gift-card.ts';
import type { CrashStep } from '../../../src/observability/test-faults.ts';

/**
 * The money-moving operations of the crash-steps test (crash-steps.reliability.test.ts): how to
 * prepare each one's request on a fresh merchant account, which provider call it makes, and how to
 * list the records it may write, to count them after a crash and a retry.
 */

export interface Answer {
  status: number;
  json: any;
  headers: Headers;
}

/** Requests as one merchant account, with an optional idempotency key. */
export type Api = (method: 'GET' | 'POST', path: string, body?: unknown, key?: string) => Promise<Answer>;

/** The API of the server at `baseUrl()` (it changes across restarts) as `merchantAccountId`, with `token`. */
export function apiOf(baseUrl: () => string, token: string, merchantAccountId?: string): Api {
  return async (method, route, body, key) => {
    const res = await fetch(`${baseUrl()}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(merchantAccountId ? { 'x-svc-merchant-account-id': merchantAccountId } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key ? { 'idempotency-key': key } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
  };
}

export interface Prepared {
  path: string;
  body?: unknown;
  /** The transaction the operation acts on (its events name the attempts), if any. */
  transactionId: string | null;
}

export interface Operation {
  name: string;
  operationId: string;
  /** The provider call the request makes (the call log's method), or null: none (cancel). */
  call: string | null;
  /** The attempt operation its transaction's events name, when it has one. */
  attempt: 'authorize' | 'capture' | 'void' | 'increment' | 'refund' | null;
  status: number;
  prepare(api: Api): Promise<Prepared>;
  /** The ids of the records of this kind the operation wrote (fresh merchant account: only its own). */
  records(api: Api, prepared: Prepared, answer: any): Promise<string[]>;
  /** The record the answer names. */
  answered(answer: any): string;
}

const card = { method: 'card', number: '4111111111111111', expiration_date: '12/40', security_code: '123' };
const authorization = { amount: 1000, currency: 'USD', country: 'US', payment_method: card };

async function expectOk(answer: Promise<Answer>, what: string): Promise<any> {
  const res = await answer;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

const authorized = async (api: Api) =>
  (await expectOk(api('POST', '/transactions', authorization), 'authorize')).id as string;
async function captured(api: Api): Promise<string> {
  const id = await authorized(api);
  await expectOk(api('POST', `/transactions/${id}/capture`, {}), 'capture');
  return id;
}

const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);
const transactionIds = async (api: Api) =>
  ids((await expectOk(api('GET', '/transactions?limit=100'), 'list transactions')).items);
const refundIds = async (api: Api, prepared: Prepared) =>
  ids((await expectOk(api('GET', `/transactions/${prepared.transactionId}/refunds`), 'list refunds')).items);

/** Attempts of one operation that the transaction's history names (one per provider call recorded). */
export async function attemptIds(api: Api, transactionId: string, operation: string): Promise<string[]> {
  const events = (await expectOk(api('GET', `/transactions/${transactionId}/events?limit=100`), 'events'))
    .items as Array<{ context: { operation?: string; attempt_id?: string } }>;
  return [
    ...new Set(
      events.filter((e) => e.context.operation === operation && e.context.attempt_id).map((e) => e.context.attempt_id!),
    ),
  ];
}

export const OPERATIONS: Operation[] = [
  {
    name: 'authorize',
    operationId: 'createTransaction',
    call: 'authorize',
    attempt: 'authorize',
    status: 201,
    prepare: async () => ({ path: '/transactions', body: authorization, transactionId: null }),
    records: (api) => transactionIds(api),
    answered: (answer) => answer.id,
  },
  {
    name: 'gift card redemption',
    operationId: 'createTransaction',
    call: 'giftCardRedeem',
    attempt: null,
    status: 201,
    prepare: async () => ({
      path: '/transactions',
      body: { ...authorization, gift_cards: [{ number: '6036281000000000001', pin: TEST_GIFT_CARD_PIN, amount: 400 }] },
      transactionId: null,
    }),
    records: async (api) => {
      const transactions = await transactionIds(api);
      for (const id of transactions) {
        const redemptions = (await expectOk(api('GET', `/transactions/${id}`), 'transaction'))
          .gift_card_redemptions as unknown[];
        // The card redeemed twice for one payment would be a second record of the redemption.
        if (redemptions.length !== 1) return [...transactions, `${redemptions.length} gift card redemptions`];
      }
      return transactions;
    },
    answered: (answer) => answer.id,
  },
  {
    name: 'capture',
    operationId: 'captureTransaction',
    call: 'capture',
    attempt: 'capture',
    status: 200,
    prepare: async (api) => {
      const id = await authorized(api);
      return { path: `/transactions/${id}/capture`, body: {}, transactionId: id };
    },
    records: async (api, prepared) =>
      ids((await expectOk(api('GET', `/transactions/${prepared.transactionId}/captures`), 'captures')).items),
    answered: (answer) => answer.transaction.id,
  },
  {
    name: 'void',
    operationId: 'voidTransaction',
    call: 'void',
    attempt: 'void',
    status: 200,
    prepare: async (api) => {
      const id = await authorized(api);
      return { path: `/transactions/${id}/void`, transactionId: id };
    },
    records: (api, prepared) => attemptIds(api, prepared.transactionId!, 'void'),
    answered: (answer) => answer.transaction.id,
  },
  {
    name: 'cancel',
    operationId: 'cancelTransaction',
    call: null,
    attempt: null,
    status: 200,
    prepare: async (api) => {
      // A network timeout at the provider: the transaction stays processing, which cancel ends.
      const id = (
        await expectOk(
          api('POST', '/transactions', { ...authorization, payment_method: { ...card, number: '4000000000000408' } }),
          'authorize (timeout)',
        )
      ).id as string;
      return { path: `/transactions/${id}/cancel`, transactionId: id };
    },
    records: async (api, prepared) => [
      (await expectOk(api('GET', `/transactions/${prepared.transactionId}`), 'transaction')).id,
    ],
    answered: (answer) => answer.transaction.id,
  },
  {
    name: 'authorization increment',
    operationId: 'incrementTransactionAuthorization',
    call: 'incrementAuthorization',
    attempt: 'increment',
    status: 200,
    prepare: async (api) => {
      const id = await authorized(api);
      return { path: `/transactions/${id}/authorization/increment`, body: { amount: 200 }, transactionId: id };
    },
    records: (api, prepared) => attemptIds(api, prepared.transactionId!, 'increment'),
    answered: (answer) => answer.transaction.id,
  },
  {
    name: 'refund',
    operationId: 'createTransactionRefund',
    call: 'refund',
    attempt: 'refund',
    status: 201,
    prepare: async (api) => {
      const id = await captured(api);
      return { path: `/transactions/${id}/refunds`, body: { amount: 300 }, transactionId: id };
    },
    records: refundIds,
    answered: (answer) => answer.id,
  },
  {
    name: 'full refund',
    operationId: 'createFullTransactionRefund',
    call: 'refund',
    attempt: 'refund',
    status: 201,
    prepare: async (api) => {
      const id = await captured(api);
      return { path: `/transactions/${id}/refunds/all`, transactionId: id };
    },
    records: refundIds,
    answered: (answer) => (answer.items.length === 1 ? answer.items[0].id : `${answer.items.length} refunds`),
  },
  {
    name: 'payout',
    operationId: 'createPayout',
    call: 'payout',
    attempt: null,
    status: 201,
    prepare: async (api) => {
      const services = (await expectOk(api('GET', '/payment-services'), 'payment services')).items as Array<{
        id: string;
      }>;
      return {
        path: '/payouts',
        body: {
          amount: 500,
          currency: 'USD',
          payment_service_id: services[0]!.id,
          payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
        },
        transactionId: null,
      };
    },
    records: async (api) => ids((await expectOk(api('GET', '/payouts?limit=100'), 'payouts')).items),
    answered: (answer) => answer.id,
  },
];

export interface CrashCase {
  operation: Operation;
  step: CrashStep;
  /** `TEST_CRASH_POINT` of the server that runs it. */
  point: string;
  /** Provider calls the request makes before it dies at this step. */
  callsAtCrash: number;
}

/**
 * Every operation at every step, a step at a time, so two cases in a row rarely share a crash point
 * (the retry of one runs on the server armed for the next). Cancel calls no provider: only its
 * answer step. The gift card payment's answer step is the card payment's (`createTransaction`).
 */
export function crashCases(): CrashCase[] {
  const cases: CrashCase[] = [];
  for (const step of ['before-call', 'after-call', 'after-answer'] as const) {
    for (const operation of OPERATIONS) {
      if (step !== 'after-answer' && !operation.call) continue;
      if (step === 'after-answer' && operation.name === 'gift card redemption') continue;
      const point = step === 'after-answer' ? `${step}:${operation.operationId}` : `${step}:${operation.call}`;
      cases.push({ operation, step, point, callsAtCrash: step === 'before-call' || !operation.call ? 0 : 1 });
    }
  }
  return cases;
}
