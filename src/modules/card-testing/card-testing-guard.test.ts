import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../test/helpers/event-subscription.ts';
import { createLink } from '../../../test/helpers/payment-links.ts';
import { luhnCards } from '../../../test/helpers/test-cards.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../test/helpers/transactions.ts';

/**
 * The card-testing guard through HTTP (docs/risk.md, "Card-testing guard"; decision 0138): a run of
 * declined cards from one source is stopped at the threshold before any provider call, one incident
 * and one webhook event are raised, and a buyer from another address keeps paying.
 */

let t: TestApp;
beforeAll(async () => {
  // The page's own budget per link is raised so that the guard, not the rate limit, is what stops the run.
  // Behind a proxy on loopback: the page takes the client's address from X-Forwarded-For (request.ip).
  t = await buildTestApp({ EMBED_RATE_LIMIT_PER_MINUTE: '100000', TRUST_PROXY: 'loopback' });
});
afterAll(async () => t.close());

/** The mock card connector declines 2005 (do_not_honor) with any card: a tester's small probe. */
const PROBE = 2005;
const THRESHOLD = 10;
const ATTACKER = '203.0.113.66';
const BUYER = '198.51.100.20';

const connectorCalls = () => vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');

async function pay(m: string, number: string, ip: string, amount: number) {
  const res = await createTransaction(
    t,
    m,
    { amount, country: 'US', payment_method: card(number) },
    { 'x-forwarded-for': ip },
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; status: string; error_code: string | null };
}

async function incidentsOf(m: string) {
  const res = await t.request({ method: 'GET', url: '/monitoring/incidents', merchantAccountId: m });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items as Array<{ id: string; spec: { model: string; params: Record<string, unknown> } }>;
}

async function incidentEvents(m: string) {
  return t.deps.db
    .selectFrom('events')
    .select(['kind', 'resource_id'])
    .where('merchant_account_id', '=', m)
    .where('kind', 'like', 'monitoring.incident.%')
    .execute();
}

/** What the hosted page's script does, from one address: a session, the card in its fields, the payment. */
async function payOnPageFrom(url: string, number: string, ip: string) {
  // The page token is bound to the address that opened the page.
  const path = new URL(url).pathname;
  const page = await t.app.inject({ method: 'GET', url: path, headers: { 'x-forwarded-for': ip } });
  const token = page.body.split('data-token="')[1]?.split('"')[0] ?? '';
  const headers = { 'x-payment-link-token': token, 'x-forwarded-for': ip };
  const session = await t.app.inject({
    method: 'POST',
    url: `${path}/sessions`,
    headers,
    payload: {},
  });
  expect(session.statusCode, session.body).toBe(201);
  const id = session.json().id as string;
  const fields = await t.app.inject({
    method: 'PUT',
    url: `/checkout/sessions/${id}/fields`,
    headers: { 'x-forwarded-for': ip },
    payload: { payment_method: { method: 'card', number, expiration_date: '12/40', security_code: '123' } },
  });
  expect(fields.statusCode, fields.body).toBe(204);
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/payments`,
    headers,
    payload: { checkout_session_id: id },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { outcome: string; transaction_id: string; page_message: string };
}

describe('happy', () => {
  it('300 declining cards from one IP through the API: the provider sees the threshold, the rest stop early; another IP keeps paying', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const calls = connectorCalls();
    const cards = luhnCards(300);
    const outcomes: string[] = [];
    let stopped: { id: string } | null = null;
    let attackerCalls = 0;
    try {
      for (const [i, number] of cards.entries()) {
        const before = calls.mock.calls.length;
        const txn = await pay(m, number, ATTACKER, PROBE);
        attackerCalls += calls.mock.calls.length - before;
        outcomes.push(txn.error_code ?? txn.status);
        if (txn.error_code === 'flow_card_testing_suspected') stopped ??= txn;
        // A legitimate buyer from another address, meanwhile.
        if (i % 25 === 0)
          expect((await pay(m, '4111111111111111', BUYER, 1000)).status).toBe('authorization_succeeded');
      }
    } finally {
      calls.mockRestore();
    }
    expect(attackerCalls).toBe(THRESHOLD);
    expect(outcomes.slice(0, THRESHOLD)).toEqual(Array(THRESHOLD).fill('do_not_honor'));
    expect(outcomes.slice(THRESHOLD)).toEqual(Array(300 - THRESHOLD).fill('flow_card_testing_suspected'));
    const actions = await t.request({
      method: 'GET',
      url: `/transactions/${stopped!.id}/actions`,
      merchantAccountId: m,
    });
    expect(actions.json().items).toEqual([
      expect.objectContaining({
        id: 'decline-early',
        rule_id: 'card-testing',
        outcome: {
          error_code: 'flow_card_testing_suspected',
          card_testing: {
            source: 'ip_address',
            distinct_declined_cards: THRESHOLD,
            threshold: THRESHOLD,
            window_minutes: 10,
          },
        },
      }),
    ]);
    const incidents = await incidentsOf(m);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]!.spec).toMatchObject({
      model: 'card_testing',
      params: { source_type: 'ip_address', distinct_declined_cards: THRESHOLD, threshold: THRESHOLD },
    });
    expect(await incidentEvents(m)).toEqual([{ kind: 'monitoring.incident.created', resource_id: incidents[0]!.id }]);
    // Nothing in the incident, the trace or the event names the address.
    expect(JSON.stringify(incidents)).not.toContain(ATTACKER);
  });

  it('through the hosted payment page (its checkout sessions): stopped at the threshold with a message for the buyer; another IP pays', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const link = await createLink(t, m, { amount: PROBE });
    const calls = connectorCalls();
    const outcomes: string[] = [];
    let message = '';
    try {
      for (const number of luhnCards(40, '400013')) {
        const paid = await payOnPageFrom(link.url, number, ATTACKER);
        outcomes.push(paid.outcome);
        message = paid.page_message;
      }
      expect(calls).toHaveBeenCalledTimes(THRESHOLD);
    } finally {
      calls.mockRestore();
    }
    expect(outcomes.every((o) => o === 'declined')).toBe(true);
    expect(message.toLowerCase()).toContain('try again later');
    const rows = await t.deps.db
      .selectFrom('transactions')
      .select(['error_code', 'checkout_session_id'])
      .where('merchant_account_id', '=', m)
      .where('payment_link_id', '=', link.id)
      .execute();
    expect(rows.filter((r) => r.error_code === 'flow_card_testing_suspected')).toHaveLength(40 - THRESHOLD);
    expect(rows.every((r) => r.checkout_session_id !== null)).toBe(true);
    const legit = await createLink(t, m, { amount: 1000 });
    const paid = await payOnPageFrom(legit.url, '4111111111111111', BUYER);
    expect(paid.outcome).toBe('paid');
    expect(await incidentsOf(m)).toHaveLength(1);
    expect(await incidentEvents(m)).toHaveLength(1);
  });

  it('one checkout session used for many declined cards is a source of its own (no address sent)', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const session = await t.request({ method: 'POST', url: '/checkout/sessions', merchantAccountId: m, payload: {} });
    expect(session.statusCode, session.body).toBe(201);
    const id = session.json().id as string;
    const codes: Array<string | null> = [];
    for (const number of luhnCards(THRESHOLD + 3, '400014')) {
      const fields = await t.app.inject({
        method: 'PUT',
        url: `/checkout/sessions/${id}/fields`,
        payload: { payment_method: { method: 'card', number, expiration_date: '12/40', security_code: '123' } },
      });
      expect(fields.statusCode, fields.body).toBe(204);
      const res = await createTransaction(t, m, { amount: PROBE, payment_method: { method: 'checkout-session', id } });
      expect(res.statusCode, res.body).toBe(201);
      codes.push(res.json().error_code);
    }
    expect(codes.slice(THRESHOLD)).toEqual(Array(3).fill('flow_card_testing_suspected'));
    expect((await incidentsOf(m))[0]!.spec.params.source_type).toBe('checkout_session');
  });
});

describe('errors', () => {
  it('declines above the small-amount ceiling do not count', async () => {
    const app = await buildTestApp({ CARD_TESTING_MAX_AMOUNT: '500' });
    try {
      const { merchantAccountId: m } = await merchantWithMockCard(app);
      for (const number of luhnCards(THRESHOLD + 5, '400015')) {
        const res = await createTransaction(
          app,
          m,
          { amount: PROBE, payment_method: card(number) },
          { 'x-forwarded-for': ATTACKER },
        );
        expect(res.json().error_code).toBe('do_not_honor');
      }
    } finally {
      await app.close();
    }
  });
});

describe('security', () => {
  it('CARD_TESTING_GUARD_ENABLED=false: no guard, every attempt reaches the provider', async () => {
    const app = await buildTestApp({ CARD_TESTING_GUARD_ENABLED: 'false' });
    const calls = vi.spyOn(app.deps.connectors.get('mock-card'), 'authorize');
    try {
      const { merchantAccountId: m } = await merchantWithMockCard(app);
      for (const number of luhnCards(THRESHOLD + 10, '400016')) {
        const res = await createTransaction(
          app,
          m,
          { amount: PROBE, payment_method: card(number) },
          { 'x-forwarded-for': ATTACKER },
        );
        expect(res.json().error_code).toBe('do_not_honor');
      }
      expect(calls).toHaveBeenCalledTimes(THRESHOLD + 10);
      expect(
        await app.deps.db
          .selectFrom('monitoring_incidents')
          .select('id')
          .where('merchant_account_id', '=', m)
          .execute(),
      ).toEqual([]);
    } finally {
      calls.mockRestore();
      await app.close();
    }
  });
});
