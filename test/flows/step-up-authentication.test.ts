import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { card } from '../helpers/transactions.ts';

/**
 * Step-up authentication on retry (docs/routing.md): a decline asking for authentication is
 * retried once with 3DS where the route rule allows it; the buyer goes through the challenge like
 * any 3DS payment. The sandbox card 4000000000003220 declines `authentication_required` (raw 1A)
 * without 3DS and is approved with it (docs/sandbox.md).
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const SCA_CARD = '4000000000003220';
const RETURN = 'https://shop.example/return';
const RULES = (action: string) => `/flows/card-transaction/actions/${action}/rules`;

async function service(m: string, name: string, threeDs: boolean, fields: Array<{ key: string; value: string }> = []) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: name,
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: name }, ...fields],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'DE'],
      three_d_secure_enabled: threeDs,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function rule(m: string, action: string, payload: object) {
  const res = await t.request({ method: 'POST', url: RULES(action), merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const pay = (m: string, body: object = {}, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    payload: {
      amount: 1000,
      currency: 'USD',
      country: 'US',
      payment_method: card(SCA_CARD, { redirect_url: RETURN }),
      ...body,
    },
    headers,
  });
const get = async (m: string, url: string) => (await t.request({ method: 'GET', url, merchantAccountId: m })).json();
const actions = async (m: string, id: string) => (await get(m, `/transactions/${id}/actions`)).items;
const attempts = async (id: string) =>
  (
    await sql<{
      payment_service_id: string;
      status: string;
      error_code: string | null;
    }>`SELECT payment_service_id, status, error_code FROM transaction_attempts WHERE transaction_id = ${id} AND operation = 'authorize' ORDER BY id`.execute(
      t.deps.db,
    )
  ).rows;
const pathOf = (url: string) => new URL(url).pathname;
const complete = (approvalUrl: string) =>
  t.app.inject({
    method: 'POST',
    url: `${pathOf(approvalUrl)}/complete`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });

/** A merchant whose 3DS service skips 3DS (an exemption the issuer may refuse), with step-up allowed or not. */
async function merchant(stepUp = true) {
  const m = await createMerchantAccount(t.deps);
  const secure = await service(m, 'secure', true);
  const ruleId = await rule(m, 'route-transaction', {
    conditions: [],
    outcome: { payment_service_ids: [secure], ...(stepUp ? { step_up_on_soft_decline: true } : {}) },
  });
  await rule(m, 'skip-3ds', { conditions: [], outcome: {} });
  return { m, secure, ruleId };
}

describe('happy', () => {
  it('a decline asking for authentication is stepped up: challenge, buyer completes, authorized; replays are byte-identical', async () => {
    const { m, secure, ruleId } = await merchant();
    const res = await pay(m, {}, { 'idempotency-key': 'step-up-1' });
    expect(res.statusCode, res.body).toBe(201);
    const txn = res.json();
    expect(txn).toMatchObject({
      status: 'buyer_approval_pending',
      payment_service: { id: secure },
      three_d_secure: { status: null, method: 'challenge' },
    });
    expect(txn.payment_method.approval_url).toMatch(/\/sandbox\/challenges\//);
    // The declined attempt is recorded; the step-up's attempt starts when the buyer completes the challenge.
    expect(await attempts(txn.id)).toEqual([
      { payment_service_id: secure, status: 'declined', error_code: 'authentication_required' },
    ]);
    const trace = await actions(m, txn.id);
    expect(trace.map((a: { id: string }) => a.id)).toEqual(['route-transaction', 'skip-3ds', 'route-transaction']);
    expect(trace[2]).toMatchObject({
      rule_id: ruleId,
      outcome: {
        step_up: {
          from: secure,
          to: secure,
          reason: 'authentication_required',
          raw_response_code: '1A',
          attempt: 2,
          authenticated_by: 'sandbox-3ds-server',
          authentication: 'challenge',
        },
      },
    });
    // A replay while the buyer is in the challenge: the same bytes, no new attempt.
    const during = await pay(m, {}, { 'idempotency-key': 'step-up-1' });
    expect(during.body).toBe(res.body);

    const done = await complete(txn.payment_method.approval_url);
    expect(done.statusCode, done.body).toBe(200);
    const after = await get(m, `/transactions/${txn.id}`);
    expect(after).toMatchObject({
      status: 'authorization_succeeded',
      error_code: null,
      three_d_secure: { status: 'complete', method: 'challenge' },
    });
    expect(await attempts(txn.id)).toEqual([
      { payment_service_id: secure, status: 'declined', error_code: 'authentication_required' },
      { payment_service_id: secure, status: 'succeeded', error_code: null },
    ]);
    const events = (await get(m, `/transactions/${txn.id}/events?limit=100`)).items.map(
      (e: { name: string }) => e.name,
    );
    expect(events).toEqual(
      expect.arrayContaining([
        'payment-connector-response-transaction-declined',
        'three-d-secure-authentication-request',
        'three-d-secure-success',
        'payment-connector-response-transaction-authorization-succeeded',
      ]),
    );
    const replay = await pay(m, {}, { 'idempotency-key': 'step-up-1' });
    expect(replay.body).toBe(res.body);
    expect(await attempts(txn.id)).toHaveLength(2);
  });

  it('frictionless 3DS (a 3DS scenario) retries at once with the 3DS data', async () => {
    const { m, secure } = await merchant();
    const scenario = await t.request({
      method: 'POST',
      url: '/three-ds-scenarios',
      merchantAccountId: m,
      payload: {
        conditions: { amount: 1400 },
        outcome: { version: '2.2.0', authentication: { transaction_status: 'Y' } },
      },
    });
    expect(scenario.statusCode, scenario.body).toBe(201);
    const txn = (await pay(m, { amount: 1400 })).json();
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      three_d_secure: { status: 'complete', method: 'frictionless' },
    });
    expect(await attempts(txn.id)).toEqual([
      { payment_service_id: secure, status: 'declined', error_code: 'authentication_required' },
      { payment_service_id: secure, status: 'succeeded', error_code: null },
    ]);
    expect((await actions(m, txn.id))[2].outcome.step_up).toMatchObject({ authentication: 'frictionless', attempt: 2 });
  });

  it('steps up at the next service of the rule when the one that declined cannot authenticate', async () => {
    const m = await createMerchantAccount(t.deps);
    const plain = await service(m, 'plain', false);
    const secure = await service(m, 'secure', true);
    await rule(m, 'route-transaction', {
      conditions: [],
      outcome: { payment_service_ids: [plain, secure], step_up_on_soft_decline: true },
    });
    const txn = (await pay(m)).json();
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', payment_service: { id: secure } });
    expect((await actions(m, txn.id))[1].outcome.step_up).toMatchObject({ from: plain, to: secure });
    await complete(txn.payment_method.approval_url);
    expect(await attempts(txn.id)).toEqual([
      { payment_service_id: plain, status: 'declined', error_code: 'authentication_required' },
      { payment_service_id: secure, status: 'succeeded', error_code: null },
    ]);
  });
});

describe('not stepped up', () => {
  const declinedOnce = async (m: string, id: string) => {
    expect(await attempts(id)).toEqual([expect.objectContaining({ status: 'declined' })]);
    const trace = await actions(m, id);
    expect(trace.some((a: { outcome: Record<string, unknown> }) => 'step_up' in a.outcome)).toBe(false);
  };

  it('without the rule allowing it', async () => {
    const { m } = await merchant(false);
    const txn = (await pay(m)).json();
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'authentication_required' });
    await declinedOnce(m, txn.id);
  });

  it('for a merchant-initiated payment (no buyer to challenge)', async () => {
    const { m } = await merchant();
    const txn = (await pay(m, { merchant_initiated: true, payment_source: 'card_on_file' })).json();
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'authentication_required' });
    await declinedOnce(m, txn.id);
  });

  it('without a redirect_url to bring the buyer back', async () => {
    const { m } = await merchant();
    const txn = (await pay(m, { payment_method: card(SCA_CARD) })).json();
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'authentication_required' });
    await declinedOnce(m, txn.id);
  });

  it('a hard decline', async () => {
    const { m } = await merchant();
    const txn = (await pay(m, { payment_method: card('4000000000000069', { redirect_url: RETURN }) })).json();
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'expired_card' });
    await declinedOnce(m, txn.id);
  });

  it('when the 3DS server refuses authentication: the decline stands, the trace says why', async () => {
    const { m } = await merchant();
    await t.request({
      method: 'POST',
      url: '/three-ds-scenarios',
      merchantAccountId: m,
      payload: {
        conditions: { amount: 1500 },
        outcome: { version: '2.2.0', authentication: { transaction_status: 'N' } },
      },
    });
    const txn = (await pay(m, { amount: 1500 })).json();
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'authentication_required',
      three_d_secure: { status: 'declined' },
    });
    expect(await attempts(txn.id)).toEqual([expect.objectContaining({ status: 'declined' })]);
    expect((await actions(m, txn.id))[2].outcome.step_up).toMatchObject({ authentication: 'declined' });
  });
});

describe('rule', () => {
  it('keeps step_up_on_soft_decline on a route-transaction rule, and leaves it out by default', async () => {
    const { m, ruleId } = await merchant();
    expect((await get(m, `${RULES('route-transaction')}/${ruleId}`)).outcome.step_up_on_soft_decline).toBe(true);
    const off = await merchant(false);
    expect((await get(off.m, `${RULES('route-transaction')}/${off.ruleId}`)).outcome).not.toHaveProperty(
      'step_up_on_soft_decline',
    );
  });

  it('refuses step_up_on_soft_decline on another action', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await t.request({
      method: 'POST',
      url: RULES('skip-3ds'),
      merchantAccountId: m,
      payload: { conditions: [], outcome: { step_up_on_soft_decline: true } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('outcome.step_up_on_soft_decline does not apply to skip-3ds');
  });
});
