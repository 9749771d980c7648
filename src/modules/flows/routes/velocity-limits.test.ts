import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { card } from '../../../../test/helpers/transactions.ts';

/** Velocity conditions of flow rules through the API (docs/risk.md, "Velocity limits"). */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const EARLY = '/flows/card-transaction/actions/decline-early/rules';
const CARDS = [
  '4111111111111111',
  '4242424242424242',
  '5555555555554444',
  '5105105105105100',
  '4012888888881881',
  '5200828282828210',
  '4000056655665556',
  '6011111111111117',
];
const DISTINCT_CARDS_PER_IP = {
  field: 'velocity',
  operator: 'greater_than',
  value: { key: 'ip_address', measure: 'distinct_cards', window_minutes: 10, threshold: 5 },
};

async function setUp(app: TestApp, conditions: object[] = [DISTINCT_CARDS_PER_IP]) {
  const m = await createMerchantAccount(app.deps);
  const service = await app.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'mock',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'mock' }],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US'],
    },
  });
  expect(service.statusCode, service.body).toBe(201);
  const rule = await app.request({
    method: 'POST',
    url: EARLY,
    merchantAccountId: m,
    payload: { conditions, outcome: { reason: 'velocity: too many cards from one address' } },
  });
  expect(rule.statusCode, rule.body).toBe(201);
  return { m, ruleId: rule.json().id as string };
}

async function pay(app: TestApp, m: string, number: string, ip: string, body: object = {}) {
  const res = await app.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    headers: { 'x-forwarded-for': ip },
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: card(number), ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; status: string; error_code: string | null; raw_response_description: string };
}

const actions = async (m: string, id: string) =>
  (await t.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m })).json().items;

async function dryRun(m: string, extra: object) {
  const res = await t.request({
    method: 'POST',
    url: '/flows/card-transaction/dry-run',
    merchantAccountId: m,
    payload: { amount: 1000, currency: 'USD', country: 'US', payment_method: { method: 'card' }, ...extra },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().decisions.find((d: { action: string }) => d.action === 'decline-early');
}

describe('happy', () => {
  it('declines the 6th distinct card from one IP in 10 minutes early, with the rule and the count; another IP keeps paying', async () => {
    const { m, ruleId } = await setUp(t);
    for (const number of CARDS.slice(0, 5))
      expect((await pay(t, m, number, '203.0.113.7')).status).toBe('authorization_succeeded');
    // The same card again is no new distinct card.
    expect((await pay(t, m, CARDS[0]!, '203.0.113.7')).status).toBe('authorization_succeeded');
    const sixth = await pay(t, m, CARDS[5]!, '203.0.113.7');
    expect(sixth).toMatchObject({
      status: 'authorization_declined',
      error_code: 'flow_decline',
      raw_response_description: 'velocity: too many cards from one address',
    });
    expect(await actions(m, sixth.id)).toEqual([
      expect.objectContaining({
        id: 'decline-early',
        rule_id: ruleId,
        outcome: expect.objectContaining({
          velocity: [
            {
              key: 'ip_address',
              measure: 'distinct_cards',
              window_minutes: 10,
              currency: null,
              operator: 'greater_than',
              threshold: 5,
              counted: 6,
            },
          ],
        }),
      }),
    ]);
    // Declined early, the address stays over the limit (its 6th card was counted), even with a known card.
    expect((await pay(t, m, CARDS[0]!, '203.0.113.7')).status).toBe('authorization_declined');
    // Another address is counted apart.
    expect((await pay(t, m, CARDS[6]!, '198.51.100.2')).status).toBe('authorization_succeeded');
    expect((await pay(t, m, CARDS[0]!, '198.51.100.2')).status).toBe('authorization_succeeded');

    // The dry run shows what each address's next transaction would count.
    const over = await dryRun(m, { ip_address: '203.0.113.7' });
    expect(over.matched_rule_id).toBe(ruleId);
    expect(over.velocity).toEqual([expect.objectContaining({ counted: 6, threshold: 5 })]);
    const under = await dryRun(m, { ip_address: '198.51.100.2' });
    expect(under.matched_rule_id).toBeNull();
    expect(under.rules[0].failed_conditions).toEqual([
      {
        index: 0,
        field: 'velocity',
        operator: 'greater_than',
        reason: 'distinct_cards of this ip_address in 10 minutes is 2, not greater than 5',
      },
    ]);
    expect((await dryRun(m, {})).rules[0].failed_conditions[0].reason).toBe(
      'velocity: ip_address is not known for this transaction',
    );
  });

  it('counts provider declines per card, and the amount per e-mail address in one currency', async () => {
    const { m } = await setUp(t, [
      {
        field: 'velocity',
        operator: 'greater_than',
        value: { key: 'card_fingerprint', measure: 'declines', window_minutes: 60, threshold: 1 },
      },
    ]);
    const decline = { amount: 2051 };
    expect((await pay(t, m, CARDS[0]!, '192.0.2.1', decline)).error_code).toBe('insufficient_funds');
    expect((await pay(t, m, CARDS[0]!, '192.0.2.1', decline)).error_code).toBe('insufficient_funds');
    // Two provider declines of this card: its next attempt is declined early, whatever the amount.
    expect((await pay(t, m, CARDS[0]!, '192.0.2.1')).error_code).toBe('flow_decline');
    expect((await pay(t, m, CARDS[1]!, '192.0.2.1')).status).toBe('authorization_succeeded');

    const email = await setUp(t, [
      {
        field: 'velocity',
        operator: 'greater_than',
        value: { key: 'email_address', measure: 'amount', window_minutes: 30, threshold: 2500, currency: 'USD' },
      },
    ]);
    const buyer = (address: string) => ({ buyer: { billing_details: { email_address: address } } });
    expect((await pay(t, email.m, CARDS[0]!, '192.0.2.1', buyer('ann@example.com'))).status).toBe(
      'authorization_succeeded',
    );
    // Another currency is not summed; case does not make another address.
    expect(
      (await pay(t, email.m, CARDS[0]!, '192.0.2.1', { ...buyer('ANN@example.com'), currency: 'EUR', amount: 5000 }))
        .status,
    ).toBe('authorization_succeeded');
    expect((await pay(t, email.m, CARDS[1]!, '192.0.2.1', buyer('Ann@Example.com'))).status).toBe(
      'authorization_succeeded',
    );
    // 1000 + 1000 + 1000 USD > 2500.
    expect((await pay(t, email.m, CARDS[2]!, '192.0.2.1', buyer('ann@example.com'))).error_code).toBe('flow_decline');
    expect((await pay(t, email.m, CARDS[2]!, '192.0.2.1', buyer('bob@example.com'))).status).toBe(
      'authorization_succeeded',
    );
  });

  it('stores keyed MACs only, and counts nothing for an account without velocity rules', async () => {
    const { m } = await setUp(t);
    await pay(t, m, CARDS[0]!, '203.0.113.99', { buyer: { billing_details: { email_address: 'eve@example.com' } } });
    const plain = await setUp(t, []);
    await pay(t, plain.m, CARDS[0]!, '203.0.113.99');
    // Every count written: PGlite's journal (decision 0146), PostgreSQL's velocity_counts.
    await t.deps.velocity.flush();
    const accounts = [m, plain.m];
    const journal = (
      await sql<{ merchant_account_id: string; cells: string }>`
        SELECT merchant_account_id, cells FROM velocity_journal WHERE merchant_account_id IN (${m}, ${plain.m})`.execute(
        t.deps.db,
      )
    ).rows;
    const rows = (
      await sql<{ merchant_account_id: string; key_mac: string; cards: string[] }>`
        SELECT merchant_account_id, key_mac, cards FROM velocity_counts WHERE merchant_account_id IN (${m}, ${plain.m})`.execute(
        t.deps.db,
      )
    ).rows;
    const stored = JSON.stringify([journal, rows]);
    for (const value of ['203.0.113', 'eve@', '4111']) expect(stored).not.toContain(value);
    // One key (the address's MAC) of the account with the rule, one card.
    const cells = usesPostgres()
      ? rows.map((r) => ({ account: r.merchant_account_id, mac: r.key_mac, cards: r.cards }))
      : journal.flatMap((r) =>
          r.cells.split('\n').map((line) => {
            const [mac, , , , , cards] = line.split('\t');
            return { account: r.merchant_account_id, mac, cards: cards!.split(',') };
          }),
        );
    expect(usesPostgres() ? journal : rows).toEqual([]);
    expect(cells).toHaveLength(1);
    expect(cells[0]!.account).toBe(accounts[0]);
    expect(cells[0]!.mac).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(cells[0]!.cards).toHaveLength(1);
  });
});

describe('errors', () => {
  const refused = async (flow: string, condition: object) => {
    const m = await createMerchantAccount(t.deps);
    return t.request({
      method: 'POST',
      url: `/flows/${flow}/actions/decline-early/rules`,
      merchantAccountId: m,
      payload: { conditions: [condition], outcome: { reason: 'no' } },
    });
  };
  const velocity = (value: object, operator = 'greater_than') => ({ field: 'velocity', operator, value });
  const base = { key: 'ip_address', measure: 'attempts', window_minutes: 10, threshold: 5 };

  it.each([
    ['card-transaction', velocity({ ...base, measure: 'amount' }), '/value/currency'],
    ['card-transaction', velocity({ ...base, currency: 'USD' }), '/value/currency'],
    ['card-transaction', velocity({ ...base, measure: 'distinct_cards', threshold: 51 }), '/value/threshold'],
    ['card-transaction', velocity({ ...base, window_minutes: 1441 }), '/value/window_minutes'],
    ['card-transaction', velocity({ ...base, key: 'phone' }), '/value/key'],
    ['card-transaction', velocity({ ...base, extra: 1 }), '/value/extra'],
    ['card-transaction', velocity(base, 'equals'), '/operator'],
    ['redirect-transaction', velocity({ ...base, key: 'card_fingerprint' }), '/value/key'],
    ['card-transaction', { field: 'amount', operator: 'greater_than', value: 5 }, '/operator'],
  ])('refuses a velocity condition that cannot be evaluated (%s, %j)', async (flow, condition, pointer) => {
    const res = await refused(flow, condition);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ pointer: `/conditions/0${pointer}` }] });
  });
});

describe.skipIf(!usesPostgres())('several processes on one PostgreSQL database', () => {
  let peer: TestApp;
  beforeAll(async () => {
    peer = await buildTestApp({}, { peerOf: t });
  });
  afterAll(async () => peer?.close());

  it('add up their counts: 3 cards through one process and 2 through another, the 6th is declined by either', async () => {
    const { m } = await setUp(t);
    for (const number of CARDS.slice(0, 3))
      expect((await pay(t, m, number, '203.0.113.50')).status).toBe('authorization_succeeded');
    for (const number of CARDS.slice(3, 5))
      expect((await pay(peer, m, number, '203.0.113.50')).status).toBe('authorization_succeeded');
    // Each process syncs once a second; here by hand: write, then read the other's.
    await peer.deps.velocity.sync();
    await t.deps.velocity.sync();
    await peer.deps.velocity.sync();
    expect((await pay(peer, m, CARDS[5]!, '203.0.113.50')).error_code).toBe('flow_decline');
    expect((await pay(t, m, CARDS[6]!, '203.0.113.50')).error_code).toBe('flow_decline');
  });
});
