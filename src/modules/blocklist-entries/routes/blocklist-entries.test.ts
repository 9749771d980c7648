import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { blocklistEntriesQuery, type BlocklistFilter } from '../blocklist-entries.repo.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const UNKNOWN = '018f0000-0000-7000-8000-000000000000';
const VISA = '4111111111111111';

const create = (merchantAccountId: string, payload: object) =>
  t.request({ method: 'POST', url: '/blocklist-entries', merchantAccountId, payload });
const importLines = (merchantAccountId: string, entries: object[]) =>
  t.request({ method: 'POST', url: '/blocklist-entries/import', merchantAccountId, payload: { entries } });
const list = (merchantAccountId: string, query = '') =>
  t.request({ method: 'GET', url: `/blocklist-entries${query}`, merchantAccountId });
const auditOf = (merchantAccountId: string) =>
  t.deps.db
    .selectFrom('audit_logs')
    .select(['action', 'resource_type', 'resource_id', 'resource_name'])
    .where('merchant_account_id', '=', merchantAccountId)
    .where('resource_type', '=', 'blocklist-entry')
    .orderBy('created_at')
    .orderBy('id')
    .execute();

async function created(merchantAccountId: string, payload: object) {
  const res = await create(merchantAccountId, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('happy', () => {
  it.each([
    ['email_address', '  Fraud@Example.COM ', 'fraud@example.com'],
    ['bin', '411111', '411111'],
    ['bin_range', '41110000 - 41119999', '41110000-41119999'],
    ['ip_address', '2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['ip_address', '10.1.2.3/8', '10.0.0.0/8'],
    ['ip_address', '::ffff:192.0.2.1', '192.0.2.1'],
    ['country', 'de', 'DE'],
    ['buyer_external_identifier', 'Customer 42', 'Customer 42'],
  ])('blocks a %s, normalized: %j → %j', async (valueType, value, stored) => {
    const m = await createMerchantAccount(t.deps);
    const body = await created(m, { value_type: valueType, value, description: 'Chargebacks' });
    expect(body).toEqual({
      type: 'blocklist-entry',
      id: expect.any(String),
      merchant_account_id: m,
      value_type: valueType,
      value: stored,
      card_number_masked: null,
      description: 'Chargebacks',
      expires_at: null,
      created_at: expect.any(String),
    });
    expect(
      (await t.request({ method: 'GET', url: `/blocklist-entries/${body.id}`, merchantAccountId: m })).json(),
    ).toEqual(body);
  });

  it('blocks a card by number: only its keyed fingerprint and its mask are stored, never the number', async () => {
    const m = await createMerchantAccount(t.deps);
    const body = await created(m, { value_type: 'card_fingerprint', card_number: VISA });
    expect(body).toMatchObject({ value_type: 'card_fingerprint', card_number_masked: '411111******1111' });
    expect(body.value).toHaveLength(43);
    const row = await sql<{ text: string }>`SELECT row_to_json(b)::text AS text FROM blocklist_entries b
      WHERE merchant_account_id = ${m}`.execute(t.deps.db);
    expect(row.rows[0]!.text).not.toContain(VISA);
    expect(t.logs.join('\n')).not.toContain(VISA);
  });

  it("blocks the card of a stored payment method and of a transaction: the same fingerprint as the card's", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { payment_method: { method: 'card', number: VISA, expiration_date: '12/40' } });
    const fromTransaction = await created(m, { value_type: 'card_fingerprint', transaction_id: txn.id });
    expect(fromTransaction.value).toBe(txn.payment_method.fingerprint);
    expect(fromTransaction.card_number_masked).toBe('411111******1111');
    const stored = await t.request({
      method: 'POST',
      url: '/payment-methods',
      merchantAccountId: m,
      payload: { method: 'card', number: '5555555555554444', expiration_date: '12/40' },
    });
    expect(stored.statusCode, stored.body).toBe(201);
    const fromMethod = await created(m, { value_type: 'card_fingerprint', payment_method_id: stored.json().id });
    expect(fromMethod).toMatchObject({ value: stored.json().fingerprint, card_number_masked: '555555******4444' });
  });

  it('lists newest first with cursors, filters by type and by value (normalized), and audits create and delete', async () => {
    const m = await createMerchantAccount(t.deps);
    const a = await created(m, { value_type: 'email_address', value: 'a@example.com' });
    const b = await created(m, { value_type: 'country', value: 'FR' });
    const c = await created(m, { value_type: 'email_address', value: 'c@example.com' });
    const first = (await list(m, '?limit=2')).json();
    expect(first.items.map((e: { id: string }) => e.id)).toEqual([c.id, b.id]);
    const second = (await list(m, `?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).json();
    expect(second.items.map((e: { id: string }) => e.id)).toEqual([a.id]);
    const emails = (await list(m, '?value_type=email_address')).json();
    expect(emails.items.map((e: { id: string }) => e.id)).toEqual([c.id, a.id]);
    const one = (await list(m, `?value_type=email_address&value=${encodeURIComponent(' A@Example.com')}`)).json();
    expect(one.items.map((e: { id: string }) => e.id)).toEqual([a.id]);
    const removed = await t.request({ method: 'DELETE', url: `/blocklist-entries/${b.id}`, merchantAccountId: m });
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await list(m)).json().items).toHaveLength(2);
    expect(await auditOf(m)).toEqual([
      ...[a, b, c].map((e) => ({
        action: 'created',
        resource_type: 'blocklist-entry',
        resource_id: e.id,
        resource_name: expect.any(String),
      })),
      {
        action: 'deleted',
        resource_type: 'blocklist-entry',
        resource_id: b.id,
        resource_name: 'Blocklist entry (country)',
      },
    ]);
    // The audit entry names the kind of value, never the value (an e-mail address is personal data).
    expect(JSON.stringify(await auditOf(m))).not.toContain('example.com');
  });

  it('imports all lines at once: created, and already blocked (or repeated) lines reported as existing', async () => {
    const m = await createMerchantAccount(t.deps);
    const before = await created(m, { value_type: 'bin', value: '400000' });
    const res = await importLines(m, [
      {
        value_type: 'email_address',
        value: 'x@example.com',
        expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
      { value_type: 'bin', value: '400000' },
      { value_type: 'ip_address', value: '198.51.100.0/24' },
      { value_type: 'email_address', value: 'X@example.com' },
      { value_type: 'card_fingerprint', card_number: VISA },
    ]);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ type: 'blocklist-import', created: 3, existing: 2 });
    expect(body.items.map((i: { status: string }) => i.status)).toEqual([
      'created',
      'existing',
      'created',
      'existing',
      'created',
    ]);
    expect(body.items[1].id).toBe(before.id);
    expect(body.items[3].id).toBe(body.items[0].id);
    expect((await list(m)).json().items).toHaveLength(4);
    expect((await auditOf(m)).filter((e) => e.action === 'created')).toHaveLength(4);
  });
});

describe('errors', () => {
  it.each([
    ['email_address', 'not-an-address', 'e-mail address'],
    ['bin', '4111', 'first 6 to 8 digits'],
    ['bin', '411111111', 'first 6 to 8 digits'],
    ['bin_range', '411199-411100', 'first BIN is above the second'],
    ['bin_range', '411100-4111999', 'same length'],
    ['ip_address', '300.1.1.1', 'IPv4 or IPv6'],
    ['ip_address', '10.0.0.0/33', 'from 0 to 32'],
    ['ip_address', 'fe80::1%eth0', 'IPv4 or IPv6'],
    ['country', 'XX', 'ISO 3166-1'],
    ['card_fingerprint', 'abc', '43 characters'],
  ])('refuses a %s %j with a message that says what is expected', async (valueType, value, hint) => {
    const m = await createMerchantAccount(t.deps);
    const res = await create(m, { value_type: valueType, value });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().details).toEqual([
      expect.objectContaining({ pointer: '/value', message: expect.stringContaining(hint) }),
    ]);
  });

  it('refuses a card number sent as a fingerprint value without repeating it', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await create(m, { value_type: 'card_fingerprint', value: VISA });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('card_number');
    expect(res.body).not.toContain(VISA);
    const invalid = await create(m, { value_type: 'card_fingerprint', card_number: '4111111111111112' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().details[0].pointer).toBe('/card_number');
    expect(invalid.body).not.toContain('4111111111111112');
  });

  it('refuses no source or two, a card source for another type, a past expiry, an unknown payment method', async () => {
    const m = await createMerchantAccount(t.deps);
    for (const [payload, pointer] of [
      [{ value_type: 'bin' }, '/'],
      [{ value_type: 'card_fingerprint', card_number: VISA, payment_method_id: UNKNOWN }, '/'],
      [{ value_type: 'email_address', card_number: VISA }, '/card_number'],
      [{ value_type: 'country', value: 'US', expires_at: '2020-01-01T00:00:00Z' }, '/expires_at'],
    ] as const) {
      const res = await create(m, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details[0].pointer).toBe(pointer);
    }
  });

  it("answers 404 for a payment method or transaction not in the account (another account's included), and names the import's line", async () => {
    const { merchantAccountId: theirs } = await merchantWithMockCard(t);
    const txn = await authorized(t, theirs, {
      payment_method: { method: 'card', number: VISA, expiration_date: '12/40' },
    });
    const m = await createMerchantAccount(t.deps);
    for (const payload of [
      { value_type: 'card_fingerprint', payment_method_id: UNKNOWN },
      { value_type: 'card_fingerprint', transaction_id: UNKNOWN },
      { value_type: 'card_fingerprint', transaction_id: txn.id },
    ]) {
      const res = await create(m, payload);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.body).not.toContain(txn.payment_method.fingerprint);
    }
    const imported = await importLines(m, [{ value_type: 'card_fingerprint', transaction_id: txn.id }]);
    expect(imported.statusCode, imported.body).toBe(400);
    expect(imported.json().details).toEqual([
      expect.objectContaining({ pointer: '/entries/0/transaction_id', type: 'not_found' }),
    ]);
    expect((await list(m)).json().items).toEqual([]);
  });

  it('answers 409 with the existing entry for a value already blocked, also when two creates race', async () => {
    const m = await createMerchantAccount(t.deps);
    const first = await created(m, { value_type: 'email_address', value: 'dup@example.com' });
    const again = await create(m, { value_type: 'email_address', value: 'DUP@example.com' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'duplicate_record', resource_id: first.id });
    const raced = await Promise.all([1, 2, 3].map(() => create(m, { value_type: 'country', value: 'NG' })));
    const statuses = raced.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 409, 409]);
    const winner = raced.find((r) => r.statusCode === 201)!.json().id;
    for (const loser of raced.filter((r) => r.statusCode === 409)) expect(loser.json().resource_id).toBe(winner);
  });

  it('refuses a whole import when any line is refused, naming every refused line, and imports nothing', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await importLines(m, [
      { value_type: 'country', value: 'US' },
      { value_type: 'bin', value: '12' },
      { value_type: 'email_address', value: 'ok@example.com' },
      { value_type: 'ip_address', value: 'nope' },
    ]);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().message).toBe('2 of 4 lines refused; nothing was imported');
    expect(res.json().details.map((d: { pointer: string }) => d.pointer)).toEqual([
      '/entries/1/value',
      '/entries/3/value',
    ]);
    expect((await list(m)).json().items).toEqual([]);
    expect(await auditOf(m)).toEqual([]);
  });

  it('answers 404 for an unknown entry and for the entry of another merchant account', async () => {
    const [mine, theirs] = [await createMerchantAccount(t.deps), await createMerchantAccount(t.deps)];
    const entry = await created(theirs, { value_type: 'country', value: 'US' });
    for (const id of [UNKNOWN, entry.id]) {
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await t.request({ method, url: `/blocklist-entries/${id}`, merchantAccountId: mine });
        expect(res.statusCode, res.body).toBe(404);
      }
    }
    expect((await list(mine)).json().items).toEqual([]);
  });
});

describe('indexes', () => {
  it.skipIf(!usesPostgres())('answers each list filter from an index (PostgreSQL EXPLAIN)', async () => {
    const account = await createMerchantAccount(t.deps);
    const noise = await createMerchantAccount(t.deps);
    for (const id of [account, noise]) {
      await sql`INSERT INTO blocklist_entries (merchant_account_id, id, value_type, value)
        SELECT ${id}, gen_random_uuid(), (ARRAY['email_address', 'bin', 'country'])[1 + n % 3], 'v-' || n
        FROM generate_series(1, 6000) AS n`.execute(t.deps.db);
    }
    await sql`ANALYZE blocklist_entries`.execute(t.deps.db);
    const plan = async (filter: BlocklistFilter) => {
      // The page query keysetPage runs: the filter, its window position, newest first, limit + 1.
      const query = blocklistEntriesQuery(t.deps.db, account, filter)
        .select(sql<number>`row_number() over (order by created_at desc, id desc)`.as('_pos'))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(21);
      const rows = await query.explain<{ 'QUERY PLAN': string }>();
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    };
    for (const filter of [
      {},
      { valueType: 'bin' as const },
      { value: 'v-42' },
      { valueType: 'bin' as const, value: 'v-42' },
    ]) {
      const text = await plan(filter);
      expect(text, JSON.stringify(filter)).toContain('blocklist_entries_');
      expect(text, JSON.stringify(filter)).not.toContain('Seq Scan');
    }
  });
});

describe('security', () => {
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/blocklist-entries', payload: { value_type: 'country', value: 'US' } }),
      scope: 'blocklist-entries.write',
    }));
  describe('import', () =>
    runScopeTests(() => t, {
      request: () => ({
        method: 'POST',
        url: '/blocklist-entries/import',
        payload: { entries: [{ value_type: 'country', value: 'US' }] },
      }),
      scope: 'blocklist-entries.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: '/blocklist-entries' }),
      scope: 'blocklist-entries.read',
    }));
  describe('get', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'GET', url: `/blocklist-entries/${UNKNOWN}` }),
      scope: 'blocklist-entries.read',
    }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'DELETE', url: `/blocklist-entries/${UNKNOWN}` }),
      scope: 'blocklist-entries.write',
    }));
});
