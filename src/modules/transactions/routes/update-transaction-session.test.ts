import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { uuidv7 } from '../../../lib/ids.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const UNAUTHORIZED = {
  type: 'error',
  code: 'unauthorized',
  status: 401,
  message: 'No valid API authentication found',
  details: [],
};

async function merchantWithPayByBank(): Promise<string> {
  const m = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'Bank',
      payment_service_definition_id: 'mock-paybybank',
      fields: [{ key: 'merchant_id', value: 'pbb' }],
      accepted_currencies: ['EUR'],
      accepted_countries: ['NL'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return m;
}

/** A redirect payment waiting for its buyer at the sandbox approval page. */
async function pending(m: string, extra: Record<string, unknown> = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: {
      amount: 2500,
      currency: 'EUR',
      payment_method: {
        method: 'paybybank',
        country: 'NL',
        currency: 'EUR',
        redirect_url: 'https://shop.example/return?cart=9',
      },
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  expect(res.json()).toMatchObject({ status: 'buyer_approval_pending' });
  return res.json();
}

/** The session call as a browser makes it: no bearer token, the session token in the query. */
const session = (
  id: string,
  token: string | null,
  options: { payload?: unknown; headers?: Record<string, string>; remoteAddress?: string } = {},
) =>
  t.app.inject({
    method: 'POST',
    url: `/transactions/${id}/session${token === null ? '' : `?token=${encodeURIComponent(token)}`}`,
    headers: options.headers ?? {},
    ...(options.payload === undefined ? {} : { payload: options.payload as string }),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });

describe('happy', () => {
  it('a redirect payment carries a session token; its session is the sandbox approval page', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    expect(txn.session_token).toEqual(expect.any(String));
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json().session_token,
    ).toBe(txn.session_token);
    const res = await session(txn.id, txn.session_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      session_data: {
        approval_url: txn.payment_method.approval_url,
        approval_target: 'any',
        approval_ui_width: '500px',
        approval_ui_height: '600px',
        expires_at: txn.approval_expires_at,
      },
      default_completion_url: `https://shop.example/return?cart=9&transaction_id=${txn.id}`,
      integration_client: 'redirect',
    });
    // No body, a JSON null, a null or empty payload: the same read.
    for (const payload of [{ payload: null }, { payload: {} }, {}])
      expect((await session(txn.id, txn.session_token, { payload })).json()).toEqual(res.json());
    const nullBody = await session(txn.id, txn.session_token, {
      payload: 'null',
      headers: { 'content-type': 'application/json' },
    });
    expect(nullBody.json()).toEqual(res.json());
  });

  it('answers for the integration client the transaction was made for, where the connector has it', async () => {
    const m = await merchantWithPayByBank();
    const web = await pending(m, { integration_client: 'web' });
    expect((await session(web.id, web.session_token)).json().integration_client).toBe('web');
    const ios = await pending(m, { integration_client: 'ios' });
    expect((await session(ios.id, ios.session_token)).json().integration_client).toBe('redirect');
  });

  it('a card payment held for a 3DS challenge carries one too; its session is the challenge page', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { three_d_secure_enabled: true });
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'USD', payment_method: card('4000000000003220') },
    });
    const txn = res.json();
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', session_token: expect.any(String) });
    const answer = (await session(txn.id, txn.session_token)).json();
    expect(answer.session_data).toMatchObject({
      approval_url: txn.payment_method.approval_url,
      expires_at: txn.approval_expires_at,
    });
    expect(answer.session_data.approval_url).toMatch(/\/sandbox\/challenges\//);
    // Without a redirect_url, the buyer ends on the page itself, which shows the outcome.
    expect(answer.default_completion_url).toBe(txn.payment_method.approval_url);
  });

  it('no session and no token for a transaction that does not wait for its buyer', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m);
    expect(txn.session_token).toBeNull();
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json().session_token,
    ).toBeNull();
  });

  it('the token ends with the wait: once the buyer approved, it is refused and the transaction shows none', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const approve = await t.app.inject({
      method: 'POST',
      url: `${new URL(txn.payment_method.approval_url).pathname}/approve`,
    });
    expect(approve.statusCode).toBe(200);
    expect((await session(txn.id, txn.session_token)).json()).toEqual(UNAUTHORIZED);
    expect(
      (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json(),
    ).toMatchObject({ status: 'authorization_succeeded', session_token: null });
  });

  it('is documented without a bearer token, with its token query and models', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = doc.paths['/transactions/{transaction_id}/session'].post;
    expect(operation).toMatchObject({ operationId: 'updateTransactionSession', security: [], tags: ['transactions'] });
    expect(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['query:token', 'path:transaction_id']),
    );
    expect(operation.parameters.some((p: { name: string }) => p.name === 'x-svc-merchant-account-id')).toBe(false);
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', '422', '429']),
    );
  });
});

describe('errors', () => {
  it('400 naming /payload for an update the connector does not take (the sandbox takes none)', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const res = await session(txn.id, txn.session_token, { payload: { payload: { locale: 'fr' } } });
    expect(res.statusCode).toBe(400);
    const message = 'The Mock pay-by-bank (sandbox redirect) session takes no update: send no payload, or an empty one';
    expect(res.json()).toEqual({
      type: 'error',
      code: 'bad_request',
      status: 400,
      message,
      details: [{ location: 'body', pointer: '/payload', message, type: 'session_update_not_supported' }],
    });
  });

  it('422 for a payload that is not an object', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const res = await session(txn.id, txn.session_token, { payload: { payload: 'fr' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail[0].loc).toEqual(['body', 'payload']);
  });
});

describe('security', () => {
  it('401 without a token, with a wrong or edited one, with a bearer token alone, or for a malformed id', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const [account, expires, mac] = txn.session_token.split('.');
    const flipped = `${account}.${expires}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    for (const token of [
      null,
      '',
      'nope',
      flipped,
      `${account}.${Number(expires) + 60_000}.${mac}`,
      `${Buffer.from('default').toString('base64url')}.${expires}.${mac}`,
    ]) {
      expect((await session(txn.id, token)).json(), String(token)).toEqual(UNAUTHORIZED);
    }
    const bearer = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/session`,
      merchantAccountId: m,
      payload: {},
    });
    expect(bearer.json()).toEqual(UNAUTHORIZED);
    expect((await session('not-a-uuid', txn.session_token)).json()).toEqual(UNAUTHORIZED);
  });

  it("401 for a token of another transaction, another merchant account's included: a token opens its own transaction only", async () => {
    const a = await merchantWithPayByBank();
    const b = await merchantWithPayByBank();
    const ofA = await pending(a);
    const ofB = await pending(b);
    const otherOfA = await pending(a);
    expect((await session(ofB.id, ofA.session_token)).json()).toEqual(UNAUTHORIZED);
    expect((await session(otherOfA.id, ofA.session_token)).json()).toEqual(UNAUTHORIZED);
    expect((await session(uuidv7(), ofA.session_token)).json()).toEqual(UNAUTHORIZED);
  });

  it("403 when the request names another merchant account than the transaction's, and nothing of the session", async () => {
    const m = await merchantWithPayByBank();
    const other = await createMerchantAccount(t.deps);
    const txn = await pending(m);
    const res = await session(txn.id, txn.session_token, { headers: { 'x-svc-merchant-account-id': other } });
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toContain('approval');
  });

  it('401 once the token has expired, even with a valid MAC, and once the approval window moved', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const past = t.deps.sessionTokens.issue(m, txn.id, new Date(Date.now() - 1000));
    expect((await session(txn.id, past)).json()).toEqual(UNAUTHORIZED);
    // The transaction's deadline is extended: the earlier token no longer matches it.
    await sql`UPDATE transactions SET approval_expires_at = approval_expires_at + interval '1 minute' WHERE id = ${txn.id}`.execute(
      t.deps.db,
    );
    expect((await session(txn.id, txn.session_token)).json()).toEqual(UNAUTHORIZED);
    const renewed = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json()
      .session_token;
    expect(renewed).not.toBe(txn.session_token);
    expect((await session(txn.id, renewed)).statusCode).toBe(200);
    await sql`UPDATE transactions SET approval_expires_at = now() - interval '1 second' WHERE id = ${txn.id}`.execute(
      t.deps.db,
    );
    expect((await session(txn.id, renewed)).json()).toEqual(UNAUTHORIZED);
  });

  it('stores no token: neither a table nor a log line holds it', async () => {
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    expect((await session(txn.id, txn.session_token)).statusCode).toBe(200);
    const mac = txn.session_token.split('.')[2];
    const { rows: tables } = await sql<{
      table_name: string;
    }>`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(
      t.deps.db,
    );
    for (const { table_name: table } of tables) {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(table)} x where strpos(to_jsonb(x)::text, ${mac}) > 0`.execute(
        t.deps.db,
      );
      expect(rows[0]!.n, table).toBe(0);
    }
    expect(t.logs.join('\n')).not.toContain(mac);
  });

  it('allows 50 calls a minute per transaction; the 51st gets 429', async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await session(txn.id, txn.session_token)).statusCode);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const over = await session(txn.id, txn.session_token);
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('limits failed token lookups to 50 a minute per client address, then refuses its misses; a valid token is still served', async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const m = await merchantWithPayByBank();
    const txn = await pending(m);
    const attacker = '203.0.113.9';
    expect((await session(txn.id, txn.session_token, { remoteAddress: attacker })).statusCode).toBe(200);
    // 50 guesses that differ from the token in their last two characters; a token that itself ends
    // in two digits of 00 to 50 is not among them (a MAC's base64url ends so in about one run in 70).
    const guesses = Array.from(
      { length: 51 },
      (_, i) => `${txn.session_token.slice(0, -2)}${String(i).padStart(2, '0')}`,
    )
      .filter((guess) => guess !== txn.session_token)
      .slice(0, 50);
    expect(guesses).toHaveLength(50);
    const statuses: number[] = [];
    for (const guess of guesses) statuses.push((await session(txn.id, guess, { remoteAddress: attacker })).statusCode);
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    const over = await session(txn.id, 'guess', { remoteAddress: attacker });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: 'too_many_requests', status: 429 });
    // A found token is served whatever its address's count (src/http/failed-lookups.ts): behind a
    // proxy many buyers share an address, and one noisy client must not lock them out.
    expect((await session(txn.id, txn.session_token, { remoteAddress: attacker })).statusCode).toBe(200);
    expect((await session(txn.id, 'guess-again', { remoteAddress: attacker })).statusCode).toBe(429);
    expect((await session(txn.id, 'guess', { remoteAddress: '203.0.113.10' })).statusCode).toBe(401);
  });
});
