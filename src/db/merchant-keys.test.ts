import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../test/helpers/factories.ts';
import type { Runtime } from '../deps.ts';
import { uuidv7 } from '../lib/ids.ts';

/**
 * Every row of a merchant table belongs to an existing merchant account: either the table
 * references merchant_accounts itself, or a foreign key on (merchant_account_id, <columns that are
 * all NOT NULL>) reaches a merchant table that does (migration 0036 dropped the direct keys that
 * such a chain already implies). Checked on the migrated schema, so a key dropped without its
 * chain fails here. The exceptions are named: the tables an authorization writes hold by
 * construction what their keys checked (migration 0078, decision 0155), against parents that
 * refuse DELETE, TRUNCATE and a new key.
 */
let runtime: Runtime;
let dispose: () => Promise<void>;
beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
});
afterAll(async () => dispose?.());

/**
 * The authorization path's tables (migration 0078, decision 0155): their merchant account is the
 * request's, which authentication found, and a transaction's attempts and history are written in
 * its insert's statement or after the request read it; no foreign key checks it on each write.
 */
const BY_CONSTRUCTION = [
  'audit_chain_pending',
  'audit_logs',
  'transaction_attempts',
  'transaction_history',
  'transactions',
];

interface Key {
  table: string;
  parent: string;
  columns: string[];
}

describe('merchant keys', () => {
  it('every table with a merchant_account_id reaches merchant_accounts through foreign keys on non-null columns', async () => {
    const db = runtime.deps.db;
    const { rows: tables } = await sql<{ table: string }>`
      select c.table_name as "table" from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = current_schema() and c.column_name = 'merchant_account_id' and c.table_name <> 'merchant_accounts'`.execute(
      db,
    );
    const { rows: keys } = await sql<Key>`
      select cl.relname as "table", pc.relname as parent,
        array(select a.attname::text from unnest(con.conkey) as k(n) join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n) as columns
      from pg_constraint con
      join pg_class cl on cl.oid = con.conrelid
      join pg_class pc on pc.oid = con.confrelid
      where con.contype = 'f' and cl.relnamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(
      db,
    );
    const { rows: notNull } = await sql<{ table: string; column: string }>`
      select table_name as "table", column_name as "column" from information_schema.columns
      where table_schema = current_schema() and is_nullable = 'NO'`.execute(db);
    const required = new Set(notNull.map((c) => `${c.table}.${c.column}`));
    const reaches = new Map<string, boolean>();
    const reach = (table: string, seen: Set<string>): boolean => {
      if (table === 'merchant_accounts' || BY_CONSTRUCTION.includes(table)) return true;
      if (reaches.has(table)) return reaches.get(table)!;
      if (seen.has(table)) return false;
      seen.add(table);
      // A nullable merchant_account_id (an instance-wide row) needs a key of its own where it is set.
      const direct = keys.some(
        (k) =>
          k.table === table &&
          k.parent === 'merchant_accounts' &&
          k.columns.length === 1 &&
          k.columns[0] === 'merchant_account_id',
      );
      const ok = required.has(`${table}.merchant_account_id`)
        ? direct ||
          keys.some(
            (k) =>
              k.table === table &&
              k.columns[0] === 'merchant_account_id' &&
              k.parent !== 'merchant_accounts' &&
              k.columns.every((c) => required.has(`${table}.${c}`)) &&
              reach(k.parent, seen),
          )
        : direct;
      reaches.set(table, ok);
      return ok;
    };
    expect(tables.length).toBeGreaterThan(30);
    // idempotency_keys has had no foreign key since migration 0001: a key is claimed before the
    // request it guards runs, and its rows expire on their own.
    expect(
      tables
        .map((t) => t.table)
        .filter((t) => !reach(t, new Set()))
        .sort(),
    ).toEqual(['idempotency_keys']);
    // The tables holding their merchant account by construction reference neither parent (an
    // attempt's nullable compensates_attempt_id keeps its key: null on an authorization), and
    // those parents never lose a row nor change its key.
    expect(
      keys.filter((k) => BY_CONSTRUCTION.includes(k.table) && ['merchant_accounts', 'transactions'].includes(k.parent)),
    ).toEqual([]);
    const { rows: guards } = await sql<{ table: string; trigger: string }>`
      select c.relname as "table", t.tgname as "trigger" from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = (select oid from pg_namespace where nspname = current_schema())
        and t.tgfoid = 'svc_refuse_parent_removal'::regproc order by 1`.execute(db);
    expect(guards).toEqual([
      { table: 'merchant_accounts', trigger: 'merchant_accounts_kept' },
      { table: 'transactions', trigger: 'transactions_kept' },
    ]);
    // The direct keys migration 0036 dropped are gone: a check per row the chain already makes.
    const direct = new Set(keys.filter((k) => k.parent === 'merchant_accounts').map((k) => k.table));
    for (const table of [
      'transaction_attempts',
      'transaction_history',
      'refunds',
      'settlements',
      'payout_attempts',
      'webhook_deliveries',
      'webhook_delivery_attempts',
    ])
      expect(direct.has(table), table).toBe(false);
    for (const table of ['events', 'payouts', 'payment_methods']) expect(direct.has(table), table).toBe(true);
  });

  it('still refuses a refund of another merchant account than its transaction, or of none', async () => {
    const db = runtime.deps.db;
    const merchant = await createMerchantAccount(runtime.deps);
    const other = await createMerchantAccount(runtime.deps);
    const transactionId = uuidv7();
    await sql`insert into transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, payment_source, merchant_initiated, is_subsequent_payment)
      values (${merchant}, ${transactionId}, 'processing', 'authorize', 'pending', 'USD', 100, 'ecommerce', false, false)`.execute(
      db,
    );
    const refund = (account: string, transaction = transactionId) =>
      sql`insert into refunds (merchant_account_id, id, transaction_id, status, currency, amount, target_type)
        values (${account}, ${uuidv7()}, ${transaction}, 'processing', 'USD', 100, 'payment-method')`.execute(db);
    await expect(refund(other)).rejects.toMatchObject({ code: '23503' });
    await expect(refund('no-such-account')).rejects.toMatchObject({ code: '23503' });
    await expect(refund(merchant, uuidv7())).rejects.toMatchObject({ code: '23503' });
    await refund(merchant);
  });
});
