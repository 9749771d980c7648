import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createLink, payOnPage } from '../../../../test/helpers/payment-links.ts';
import { card, createTransaction, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * A payment that matches a live blocklist entry ends before routing and any connector call
 * (docs/risk.md, "Blocklists"): declined, `flow_blocklisted`, a decline-early action naming the
 * entry, its type and the matched fact, never the value.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';

async function block(m: string, payload: object): Promise<{ id: string }> {
  const res = await t.request({ method: 'POST', url: '/blocklist-entries', merchantAccountId: m, payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const connectorCalls = () => vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');

async function pay(m: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await createTransaction(t, m, { country: 'US', ...body }, headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function actionsOf(m: string, id: string) {
  const res = await t.request({ method: 'GET', url: `/transactions/${id}/actions`, merchantAccountId: m });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().items;
}

async function expectBlocked(
  m: string,
  txn: Record<string, unknown>,
  entryId: string,
  valueType: string,
  field: string,
) {
  expect(txn).toMatchObject({
    status: 'authorization_declined',
    intent_outcome: 'failed',
    error_code: 'flow_blocklisted',
    payment_service: null,
    payment_service_transaction_id: null,
  });
  expect(await actionsOf(m, txn.id as string)).toEqual([
    {
      type: 'action',
      id: 'decline-early',
      flow: expect.any(String),
      rule_id: 'blocklist',
      created_at: expect.any(String),
      outcome: { error_code: 'flow_blocklisted', blocklist_entry: { id: entryId, value_type: valueType, field } },
    },
  ]);
  const attempts = await t.deps.db
    .selectFrom('transaction_attempts')
    .select('id')
    .where('merchant_account_id', '=', m)
    .where('transaction_id', '=', txn.id as string)
    .execute();
  expect(attempts).toEqual([]);
}

describe('happy', () => {
  it('an unblocked payment is authorized and its trace has no blocklist entry', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    await block(m, { value_type: 'card_fingerprint', card_number: MASTERCARD });
    await block(m, { value_type: 'ip_address', value: '198.51.100.0/24' });
    const txn = await pay(m, {}, { 'x-forwarded-for': '198.51.101.1' });
    expect(txn.status).toBe('authorization_succeeded');
    expect(JSON.stringify(await actionsOf(m, txn.id))).not.toContain('blocklist');
  });
});

describe('errors', () => {
  it('a blocked card is declined without any connector call, the trace naming the entry and not the value', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const entry = await block(m, { value_type: 'card_fingerprint', card_number: VISA });
    const calls = connectorCalls();
    try {
      const txn = await pay(m, { payment_method: card(VISA) });
      expect(calls).not.toHaveBeenCalled();
      await expectBlocked(m, txn, entry.id, 'card_fingerprint', 'card');
      expect(txn.raw_response_description).toContain(entry.id);
      const stored = await t.request({ method: 'GET', url: `/blocklist-entries/${entry.id}`, merchantAccountId: m });
      expect(JSON.stringify(await actionsOf(m, txn.id))).not.toContain(stored.json().value);
    } finally {
      calls.mockRestore();
    }
  });

  it.each([
    ['bin', '411111', {}, 'bin'],
    ['bin_range', '41111100-41111199', {}, 'bin'],
    ['country', 'NL', { country: 'NL' }, 'country'],
    [
      'email_address',
      'Fraud@Example.com',
      { buyer: { billing_details: { email_address: 'FRAUD@example.com' } } },
      'email_address',
    ],
    ['country', 'NG', { buyer: { billing_details: { address: { country: 'NG' } } } }, 'billing_address.country'],
    [
      'buyer_external_identifier',
      'guest-77',
      { buyer: { external_identifier: 'guest-77' } },
      'buyer_external_identifier',
    ],
  ])('a %s entry (%s) blocks a payment that matches it', async (valueType, value, body, field) => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const entry = await block(m, { value_type: valueType, value });
    const calls = connectorCalls();
    try {
      await expectBlocked(m, await pay(m, body), entry.id, valueType, field);
      expect(calls).not.toHaveBeenCalled();
    } finally {
      calls.mockRestore();
    }
  });

  it('an IP entry blocks the buyer address of X-Forwarded-For inside its CIDR block, IPv4 and IPv6', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const v4 = await block(m, { value_type: 'ip_address', value: '203.0.113.0/24' });
    const v6 = await block(m, { value_type: 'ip_address', value: '2001:db8:abcd::/48' });
    await expectBlocked(
      m,
      await pay(m, {}, { 'x-forwarded-for': '203.0.113.99, 10.0.0.1' }),
      v4.id,
      'ip_address',
      'ip_address',
    );
    await expectBlocked(
      m,
      await pay(m, {}, { 'x-forwarded-for': '2001:db8:abcd:12::5' }),
      v6.id,
      'ip_address',
      'ip_address',
    );
    expect((await pay(m, {}, { 'x-forwarded-for': '2001:db8:abce::5' })).status).toBe('authorization_succeeded');
  });

  it("a stored buyer's external identifier and e-mail address are matched", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const buyer = await t.request({
      method: 'POST',
      url: '/buyers',
      merchantAccountId: m,
      payload: { external_identifier: 'cust-9', billing_details: { email_address: 'nine@example.com' } },
    });
    expect(buyer.statusCode, buyer.body).toBe(201);
    const entry = await block(m, { value_type: 'buyer_external_identifier', value: 'cust-9' });
    await expectBlocked(
      m,
      await pay(m, { buyer_id: buyer.json().id }),
      entry.id,
      'buyer_external_identifier',
      'buyer_external_identifier',
    );
    await t.request({ method: 'DELETE', url: `/blocklist-entries/${entry.id}`, merchantAccountId: m });
    const byEmail = await block(m, { value_type: 'email_address', value: 'nine@example.com' });
    await expectBlocked(
      m,
      await pay(m, { buyer_external_identifier: 'cust-9' }),
      byEmail.id,
      'email_address',
      'email_address',
    );
  });

  it('the hosted payment page (through its checkout session) is blocked the same way', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const entry = await block(m, { value_type: 'card_fingerprint', card_number: VISA });
    const link = await createLink(t, m);
    const calls = connectorCalls();
    try {
      const res = await payOnPage(t, link.url, VISA);
      expect(calls).not.toHaveBeenCalled();
      const row = await t.deps.db
        .selectFrom('transactions')
        .select(['id', 'status', 'error_code', 'checkout_session_id'])
        .where('merchant_account_id', '=', m)
        .where('payment_link_id', '=', link.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'authorization_declined', error_code: 'flow_blocklisted' });
      expect(row.checkout_session_id).not.toBeNull();
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect((await actionsOf(m, row.id))[0].outcome.blocklist_entry.id).toBe(entry.id);
    } finally {
      calls.mockRestore();
    }
  });

  it('a deleted entry stops blocking at once; an expired one never blocks; one that expires stops blocking then', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const entry = await block(m, { value_type: 'country', value: 'GB' });
    expect((await pay(m, { country: 'GB' })).error_code).toBe('flow_blocklisted');
    await t.request({ method: 'DELETE', url: `/blocklist-entries/${entry.id}`, merchantAccountId: m });
    expect((await pay(m, { country: 'GB' })).status).toBe('authorization_succeeded');
    // Expired before any payment looked: written directly, as a purge would find it.
    await sql`INSERT INTO blocklist_entries (merchant_account_id, id, value_type, value, expires_at)
      VALUES (${m}, gen_random_uuid(), 'country', 'DE', now() - interval '1 minute')`.execute(t.deps.db);
    expect((await pay(m, { country: 'DE' })).status).toBe('authorization_succeeded');
    const soon = await block(m, {
      value_type: 'country',
      value: 'FR',
      expires_at: new Date(Date.now() + 1_500).toISOString(),
    });
    expect((await pay(m, { country: 'FR' })).error_code).toBe('flow_blocklisted');
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await pay(m, { country: 'FR' })).status, `entry ${soon.id} should have expired`).toBe(
      'authorization_succeeded',
    );
  });
});

describe('security', () => {
  it("another merchant account's entries never block", async () => {
    const { merchantAccountId: mine } = await merchantWithMockCard(t);
    const { merchantAccountId: theirs } = await merchantWithMockCard(t);
    await block(theirs, { value_type: 'card_fingerprint', card_number: VISA });
    await block(theirs, { value_type: 'country', value: 'US' });
    expect((await pay(mine, { payment_method: card(VISA) })).status).toBe('authorization_succeeded');
    expect((await pay(theirs, { payment_method: card(VISA) })).error_code).toBe('flow_blocklisted');
  });
});

describe.skipIf(!usesPostgres())('two processes on one database', () => {
  let b: TestApp;
  beforeAll(async () => {
    b = await buildTestApp({}, { peerOf: t });
  });
  afterAll(async () => b?.close());

  /** Polls until `check` holds: the other process hears of a change when its notification arrives. */
  async function eventually(what: string, check: () => Promise<boolean>, ms = 5_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('B blocks a value A blocked after B had cached the list, and unblocks it when A deletes the entry', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const payOnB = async () => {
      const res = await createTransaction(b, m, { country: 'US' });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().error_code as string | null;
    };
    expect(await payOnB()).toBeNull();
    expect(b.deps.readCaches.blocklists.size).toBeGreaterThan(0);
    const entry = await block(m, { value_type: 'country', value: 'US' });
    await eventually('B blocks the new entry', async () => (await payOnB()) === 'flow_blocklisted');
    await t.request({ method: 'DELETE', url: `/blocklist-entries/${entry.id}`, merchantAccountId: m });
    await eventually('B stops blocking the deleted entry', async () => (await payOnB()) === null);
  });
});
