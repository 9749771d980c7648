import { createHash } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonical } from '../../src/http/idempotency-fingerprint.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { bruteForceCards, type Haystack, type KnownCard, type SentRequest } from '../helpers/card-brute-force.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';
import { dumpAllTables } from '../reliability/support/leak-scan.ts';

/**
 * Issue 48, item 1: after card requests on every path that takes card data, each with an
 * idempotency key, a brute force over the unknown digits of the card number and the security code
 * (support: test/helpers/card-brute-force.ts) against every hash-looking value of every row of
 * every table, every log line and every answer recovers nothing.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ LOG_LEVEL: 'trace' });
});
afterAll(async () => t?.close());

const CARDS = {
  // The example: recovered from idempotency_keys.request_hash in 111,738 hashes.
  authorize: { label: 'authorize', number: '4111111111111111', code: '737' },
  stored: { label: 'payment method', number: '5555555555554444', code: '318' },
  storedCode: { label: 'stored card paid with its code', number: '6011111111111117', code: '592' },
  payout: { label: 'payout', number: '4012888888881881' },
  networkToken: { label: 'network token (the code only)', number: '378282246310005', code: '4821' },
  fields: { label: 'checkout session fields', number: '5105105105105100', code: '906' },
  panOnly: { label: 'Google Pay PAN_ONLY', number: '4242424242424242', code: '271' },
  giftCard: { label: 'gift card', number: '6036281000000000042', code: '5831' },
} satisfies Record<string, KnownCard>;

const card = (c: KnownCard, extra: Record<string, unknown> = {}) => ({
  method: 'card',
  number: c.number,
  expiration_date: '12/40',
  ...(c.code ? { security_code: c.code } : {}),
  ...extra,
});

interface Session {
  merchantAccountId: string;
  paymentServiceId: string;
  requests: SentRequest[];
  answers: Haystack[];
  send(options: InjectOptions & { url: string; method: string }, status: number): Promise<Record<string, any>>;
}

async function session(): Promise<Session> {
  const { merchantAccountId, paymentServiceId } = await merchantWithMockCard(t);
  const s: Session = {
    merchantAccountId,
    paymentServiceId,
    requests: [],
    answers: [],
    async send(options, status) {
      const headers = { 'idempotency-key': uuidv7(), ...(options.headers as Record<string, string>) };
      const res = await t.request({ ...options, headers, merchantAccountId });
      expect(res.statusCode, `${options.method} ${options.url}: ${res.body}`).toBe(status);
      s.requests.push({ method: options.method, url: options.url, payload: options.payload });
      s.answers.push({
        where: `answer to ${options.method} ${options.url}`,
        text: `${JSON.stringify(res.headers)}\n${res.body}`,
      });
      return res.body ? res.json() : {};
    },
  };
  return s;
}

/** Sends a card through every path that takes one (all with idempotency keys). */
async function sendCards(s: Session): Promise<void> {
  await s.send(
    {
      method: 'POST',
      url: '/transactions',
      payload: { amount: 1234, currency: 'USD', payment_method: card(CARDS.authorize) },
    },
    201,
  );
  await s.send({ method: 'POST', url: '/payment-methods', payload: card(CARDS.stored) }, 201);
  const stored = await s.send(
    { method: 'POST', url: '/payment-methods', payload: card({ ...CARDS.storedCode, code: undefined }) },
    201,
  );
  await s.send(
    {
      method: 'POST',
      url: '/transactions',
      payload: {
        amount: 800,
        currency: 'USD',
        payment_method: { method: 'id', id: stored.id, security_code: CARDS.storedCode.code },
      },
    },
    201,
  );
  await s.send(
    {
      method: 'POST',
      url: '/payouts',
      payload: {
        amount: 900,
        currency: 'USD',
        payment_service_id: s.paymentServiceId,
        payment_method: card(CARDS.payout),
      },
    },
    201,
  );
  const amex = await s.send(
    { method: 'POST', url: '/payment-methods', payload: card({ ...CARDS.networkToken, code: undefined }) },
    201,
  );
  await s.send(
    {
      method: 'POST',
      url: `/payment-methods/${amex.id}/network-tokens`,
      payload: { merchant_initiated: false, is_subsequent_payment: false, security_code: CARDS.networkToken.code },
    },
    201,
  );
  const checkout = await s.send({ method: 'POST', url: '/checkout/sessions', payload: {} }, 201);
  await s.send(
    {
      method: 'POST',
      url: `/checkout/sessions/${checkout.id}/fields`,
      payload: { payment_method: card(CARDS.fields) },
    },
    204,
  );
  await s.send(
    {
      method: 'POST',
      url: '/transactions',
      payload: {
        amount: 700,
        currency: 'USD',
        payment_method: { ...card(CARDS.panOnly), method: 'googlepay_pan_only' },
      },
    },
    201,
  );
  const gift = { number: CARDS.giftCard.number, pin: CARDS.giftCard.code };
  await s.send({ method: 'POST', url: '/gift-cards', payload: gift }, 201);
  await s.send({ method: 'POST', url: '/gift-cards/balances', payload: { items: [gift] } }, 200);
}

/** Every row of every table, every log line and every answer. */
async function haystacks(s: Session): Promise<Haystack[]> {
  const rows = (await dumpAllTables(t.deps)).flatMap(({ table, rows }) =>
    rows.map((text, i) => ({ where: `table ${table} row ${i}`, text })),
  );
  return [...rows, ...t.logs.map((text, i) => ({ where: `log line ${i}`, text })), ...s.answers];
}

describe('request fingerprint', () => {
  const pay = (merchantAccountId: string, key: string, payment_method: object) =>
    t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId,
      payload: { amount: 1234, currency: 'USD', payment_method },
      headers: { 'idempotency-key': key },
    });

  it('replays the same card in another key order, and refuses another card number or code under the same key', async () => {
    const { merchantAccountId } = await merchantWithMockCard(t);
    const key = uuidv7();
    const first = await pay(merchantAccountId, key, card(CARDS.authorize));
    expect(first.statusCode, first.body).toBe(201);
    const reordered = await pay(merchantAccountId, key, {
      security_code: CARDS.authorize.code,
      expiration_date: '12/40',
      number: CARDS.authorize.number,
      method: 'card',
    });
    expect([reordered.statusCode, reordered.headers['idempotent-replayed'], reordered.body]).toEqual([
      201,
      'true',
      first.body,
    ]);
    for (const other of [
      card({ ...CARDS.authorize, number: '4242424242424242' }),
      card({ ...CARDS.authorize, code: '738' }),
      card(CARDS.authorize, { expiration_date: '11/40' }),
    ]) {
      const res = await pay(merchantAccountId, key, other);
      expect([res.statusCode, res.json().details?.[0]?.type]).toEqual([400, 'idempotency_mismatch']);
    }
  });

  it("is a keyed MAC under each merchant account's own key: the same request gives another value elsewhere", async () => {
    const key = uuidv7();
    const hashes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { merchantAccountId } = await merchantWithMockCard(t);
      expect((await pay(merchantAccountId, key, card(CARDS.authorize))).statusCode).toBe(201);
      const row = await t.deps.db
        .selectFrom('idempotency_keys')
        .select('request_hash')
        .where('merchant_account_id', '=', merchantAccountId)
        .where('key', '=', key)
        .executeTakeFirstOrThrow();
      hashes.push(row.request_hash);
    }
    expect(hashes[0]).toMatch(/^k1:[A-Za-z0-9_-]{43}$/);
    expect(hashes[1]).toMatch(/^k1:[A-Za-z0-9_-]{43}$/);
    expect(hashes[0]).not.toBe(hashes[1]);
  });
});

describe('security', () => {
  it('no hash, fingerprint or log line lets a brute force over the unknown digits recover a card number or security code', async () => {
    const s = await session();
    await sendCards(s);
    const stack = await haystacks(s);
    // The scan sees what it should: a key with its request hash for each request but the two that
    // take none (checkout session fields, gift card balances).
    expect(stack.filter((h) => h.where.startsWith('table idempotency_keys')).length).toBeGreaterThanOrEqual(
      s.requests.length - 2,
    );
    expect(bruteForceCards(Object.values(CARDS), s.requests, stack)).toEqual([]);
  });

  it('the brute force finds a card hashed the way the request fingerprint used to (SHA-256 of method, URL and canonical body)', () => {
    const request = {
      method: 'POST',
      url: '/transactions',
      payload: { amount: 1234, currency: 'USD', payment_method: card(CARDS.authorize) },
    };
    const unkeyed = createHash('sha256')
      .update(`${request.method} ${request.url}\n${canonical(request.payload)}`)
      .digest('hex');
    const hits = bruteForceCards(
      [CARDS.authorize],
      [request],
      [{ where: 'idempotency_keys.request_hash', text: `(default,owner,key,${unkeyed})` }],
    );
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatch(
      /^authorize: number 4111111111111111 and code 737 recovered from the sha256 of the method, URL and canonical JSON .* of request 1 \(POST \/transactions\), in idempotency_keys.request_hash$/,
    );
  });
});
