import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { expireThreeDsChallenges } from '../three-ds/three-ds-challenge.service.ts';

/** The interactive sandbox 3DS challenge: the transaction waits for the buyer's page, and the connector for the challenge. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const CHALLENGE_CARD = '4000000000003220';
const CVV = '739';
const pathOf = (url: string) => new URL(url).pathname;
const post = (url: string) =>
  t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
const attemptsOf = (id: string) =>
  t.deps.db.selectFrom('transaction_attempts').selectAll().where('transaction_id', '=', id).execute();
const challengeOf = (id: string) =>
  t.deps.db.selectFrom('three_ds_challenges').selectAll().where('transaction_id', '=', id).executeTakeFirstOrThrow();
const heldCodes = (challengeId: string) =>
  t.deps.db
    .selectFrom('vault_security_codes')
    .selectAll()
    .where('owner_type', '=', 'three-ds-challenge')
    .where('owner_id', '=', challengeId)
    .execute();

async function merchant() {
  return (await merchantWithMockCard(t, { three_d_secure_enabled: true })).merchantAccountId;
}

/** A challenged transaction, checked to be waiting: no connector call, the card sealed, the code held. */
async function pending(m: string, body: Record<string, unknown> = {}) {
  const res = await createTransaction(t, m, { payment_method: card(CHALLENGE_CARD, { security_code: CVV }), ...body });
  expect(res.statusCode, res.body).toBe(201);
  const txn = res.json();
  expect(txn).toMatchObject({
    status: 'buyer_approval_pending',
    intent_outcome: 'pending',
    authorized_amount: 0,
    three_d_secure: { status: null, method: 'challenge', response_data: null },
  });
  expect(txn.payment_method.approval_url).toMatch(/^http.*\/sandbox\/challenges\/[^/]+\/[0-9a-f-]{36}$/);
  expect(txn.approval_expires_at).toEqual(expect.any(String));
  expect(await attemptsOf(txn.id)).toEqual([]);
  const events = (await get(m, `/transactions/${txn.id}/events`)).items.map((e: { name: string }) => e.name);
  expect(events.filter((n: string) => n.startsWith('payment-connector-'))).toEqual([]);
  return txn;
}

async function expectPurged(transactionId: string) {
  const challenge = await challengeOf(transactionId);
  expect(challenge).toMatchObject({ number_ciphertext: null, number_key_id: null, expiration_date: null });
  expect(await heldCodes(challenge.id)).toEqual([]);
  return challenge;
}

describe('happy', () => {
  it('waits for the challenge; completing it authorizes with the challenge 3DS data', async () => {
    const m = await merchant();
    const txn = await pending(m);
    const challenge = await challengeOf(txn.id);
    expect(challenge.status).toBe('pending');
    expect(challenge.number_ciphertext).toEqual(expect.any(String));
    expect(await heldCodes(challenge.id)).toHaveLength(1);
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Complete');
    expect(page.body).toContain('3220');
    expect(page.body).not.toContain(CHALLENGE_CARD);

    const done = await post(`${pathOf(txn.payment_method.approval_url)}/complete`);
    expect(done.statusCode, done.body).toBe(200);
    expect(done.body).toContain('authorization succeeded');
    // The authorization counts for the service's success rate, like one of POST /transactions.
    expect((await t.deps.routingStats.view(m, 60))(txn.payment_service.id, '*')).toEqual({
      successes: 1,
      failures: 0,
      errors: 0,
    });
    const after = await get(m, `/transactions/${txn.id}`);
    expect(after).toMatchObject({
      status: 'authorization_succeeded',
      intent_outcome: 'succeeded',
      authorized_amount: 1000,
      error_code: null,
      cvv_response_code: 'match',
      approval_expires_at: null,
      three_d_secure: {
        status: 'complete',
        method: 'challenge',
        error_data: null,
        response_data: { eci: '05', directory_response: 'C', authentication_response: 'Y', cavv: expect.any(String) },
      },
    });
    expect(await attemptsOf(txn.id)).toEqual([
      expect.objectContaining({ operation: 'authorize', status: 'succeeded' }),
    ]);
    expect((await expectPurged(txn.id)).status).toBe('completed');
    const events = (await get(m, `/transactions/${txn.id}/events`)).items.map((e: { name: string }) => e.name);
    expect(events).toEqual(
      expect.arrayContaining([
        'three-d-secure-authentication-request',
        'three-d-secure-success',
        'payment-connector-response-transaction-authorization-succeeded',
      ]),
    );
    expect((await post(`${pathOf(txn.payment_method.approval_url)}/fail`)).statusCode).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) })).body).toContain(
      'no challenge is waiting',
    );
  });

  it('a completed challenge with intent capture and store: true captures and stores the card', async () => {
    const m = await merchant();
    const txn = await pending(m, { intent: 'capture', store: true });
    await post(`${pathOf(txn.payment_method.approval_url)}/complete`);
    const after = await get(m, `/transactions/${txn.id}`);
    expect(after).toMatchObject({
      status: 'capture_succeeded',
      captured_amount: 1000,
      payment_method: { id: expect.any(String), label: '3220' },
    });
    await expectPurged(txn.id);
  });

  it('challenges a stored card: nothing but the held code is kept, the card is read from the vault again', async () => {
    const m = await merchant();
    const stored = await t.request({
      method: 'POST',
      url: '/payment-methods',
      merchantAccountId: m,
      payload: { method: 'card', number: CHALLENGE_CARD, expiration_date: '12/40' },
    });
    expect(stored.statusCode, stored.body).toBe(201);
    const txn = await pending(m, { payment_method: { method: 'id', id: stored.json().id, security_code: CVV } });
    const challenge = await challengeOf(txn.id);
    expect(challenge.number_ciphertext).toBeNull();
    expect(await heldCodes(challenge.id)).toHaveLength(1);
    await post(`${pathOf(txn.payment_method.approval_url)}/complete`);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      payment_method: { id: stored.json().id },
      cvv_response_code: 'match',
      three_d_secure: { status: 'complete', method: 'challenge' },
    });
    await expectPurged(txn.id);
  });

  it('keeps the card number and security code out of responses, logs and the challenge row', async () => {
    const m = await merchant();
    const created = await createTransaction(t, m, { payment_method: card(CHALLENGE_CARD, { security_code: CVV }) });
    const txn = created.json();
    const row = await t.deps.db
      .selectFrom('three_ds_challenges')
      .selectAll()
      .where('transaction_id', '=', txn.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(CHALLENGE_CARD);
    const done = await post(`${pathOf(txn.payment_method.approval_url)}/complete`);
    const read = await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m });
    for (const body of [created.body, done.body, read.body]) {
      expect(body).not.toContain(CHALLENGE_CARD);
      expect(body).not.toContain(`"${CVV}"`);
    }
    const logs = t.logs.join('\n');
    expect(logs).not.toContain(CHALLENGE_CARD);
    expect(logs).not.toContain(`"${CVV}"`);
  });
});

describe('errors', () => {
  it('failing the challenge declines without calling the connector', async () => {
    const m = await merchant();
    const txn = await pending(m);
    const failed = await post(`${pathOf(txn.payment_method.approval_url)}/fail`);
    expect(failed.statusCode, failed.body).toBe(200);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_declined',
      intent_outcome: 'failed',
      error_code: 'three_d_secure_authentication_failed',
      authorized_amount: 0,
      three_d_secure: { status: 'declined', method: 'challenge', response_data: null, error_data: { code: 'N' } },
    });
    expect(await attemptsOf(txn.id)).toEqual([]);
    expect((await expectPurged(txn.id)).status).toBe('failed');
    expect((await post(`${pathOf(txn.payment_method.approval_url)}/complete`)).statusCode).toBe(400);
  });

  it('times out a challenge nobody finishes (BUYER_APPROVAL_TIMEOUT_SECONDS) and destroys its card data', async () => {
    const m = await merchant();
    const txn = await pending(m);
    expect(await expireThreeDsChallenges(t.deps, new Date(Date.parse(txn.approval_expires_at) - 1000))).toBe(0);
    expect(
      await expireThreeDsChallenges(t.deps, new Date(Date.parse(txn.approval_expires_at) + 1000)),
    ).toBeGreaterThanOrEqual(1);
    expect(await get(m, `/transactions/${txn.id}`)).toMatchObject({
      status: 'authorization_failed',
      intent_outcome: 'failed',
      error_code: 'buyer_approval_timeout',
      buyer_approval_timedout_at: expect.any(String),
      three_d_secure: { status: 'error', method: 'challenge', error_data: { code: 'U' } },
    });
    expect(await attemptsOf(txn.id)).toEqual([]);
    expect((await expectPurged(txn.id)).status).toBe('expired');
    expect((await post(`${pathOf(txn.payment_method.approval_url)}/complete`)).statusCode).toBe(400);
  });

  it('canceling the transaction ends the challenge and destroys its card data', async () => {
    const m = await merchant();
    const txn = await pending(m);
    const res = await t.request({ method: 'POST', url: `/transactions/${txn.id}/cancel`, merchantAccountId: m });
    expect(res.json()).toMatchObject({
      status: 'succeeded',
      transaction: {
        status: 'authorization_failed',
        error_code: 'canceled',
        three_d_secure: { status: 'cancelled', method: 'challenge' },
      },
    });
    expect((await expectPurged(txn.id)).status).toBe('canceled');
    expect((await post(`${pathOf(txn.payment_method.approval_url)}/complete`)).statusCode).toBe(400);
  });

  it("a scenario's result decides what completing yields: N declines, timeout authorizes without 3DS", async () => {
    const m = await merchant();
    for (const [amount, result] of [
      [1301, 'N'],
      [1302, 'timeout'],
    ] as const) {
      const res = await t.request({
        method: 'POST',
        url: '/three-ds-scenarios',
        merchantAccountId: m,
        payload: {
          conditions: { amount },
          outcome: {
            version: '2.2.0',
            authentication: { transaction_status: 'C' },
            result: { transaction_status: result },
          },
        },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const declined = await pending(m, {
      amount: 1301,
      payment_method: card('4111111111111111', { security_code: CVV }),
    });
    await post(`${pathOf(declined.payment_method.approval_url)}/complete`);
    expect(await get(m, `/transactions/${declined.id}`)).toMatchObject({
      status: 'authorization_declined',
      error_code: 'three_d_secure_authentication_failed',
      three_d_secure: { status: 'declined' },
    });
    expect(await attemptsOf(declined.id)).toEqual([]);
    await expectPurged(declined.id);
    const unauthenticated = await pending(m, {
      amount: 1302,
      payment_method: card('4111111111111111', { security_code: CVV }),
    });
    await post(`${pathOf(unauthenticated.payment_method.approval_url)}/complete`);
    expect(await get(m, `/transactions/${unauthenticated.id}`)).toMatchObject({
      status: 'authorization_succeeded',
      three_d_secure: { status: 'error', method: 'challenge', response_data: null },
    });
    await expectPurged(unauthenticated.id);
  });

  it('gift cards are redeemed before the challenge and given back when it fails', async () => {
    const m = await merchant();
    const txn = await pending(m, {
      amount: 3000,
      gift_cards: [{ number: '6036281000000000001', pin: '1234', amount: 1000 }],
    });
    expect(txn.gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', amount: 1000 });
    await post(`${pathOf(txn.payment_method.approval_url)}/fail`);
    const after = await get(m, `/transactions/${txn.id}`);
    expect(after).toMatchObject({
      status: 'authorization_declined',
      error_code: 'three_d_secure_authentication_failed',
    });
    expect(after.gift_card_redemptions[0]).toMatchObject({ refunded_amount: 1000 });
  });

  it('answers 404 for an unknown challenge or another account in the path', async () => {
    const m = await merchant();
    const txn = await pending(m);
    const challenge = await challengeOf(txn.id);
    expect(
      (await t.app.inject({ method: 'GET', url: `/sandbox/challenges/${m}/018f0000-0000-7000-8000-000000000000` }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.app.inject({ method: 'GET', url: `/sandbox/challenges/someone-else/${challenge.id}` })).statusCode,
    ).toBe(404);
    expect((await post(`/sandbox/challenges/someone-else/${challenge.id}/complete`)).statusCode).toBe(404);
  });
});

describe('security', () => {
  it('the challenge page and its answers may not be framed: another site cannot overlay the Complete button (clickjacking)', async () => {
    const m = await merchant();
    const txn = await pending(m);
    const page = await t.app.inject({ method: 'GET', url: pathOf(txn.payment_method.approval_url) });
    const done = await post(`${pathOf(txn.payment_method.approval_url)}/complete`);
    for (const res of [page, done]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('the challenge pages do not exist in production', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
    });
    try {
      const url = `/sandbox/challenges/default/018f0000-0000-7000-8000-000000000000`;
      expect((await production.app.inject({ method: 'GET', url })).statusCode).toBe(404);
      expect((await production.app.inject({ method: 'POST', url: `${url}/complete` })).statusCode).toBe(404);
    } finally {
      await production.close();
    }
  });
});
