import { sql } from 'kysely';
import { migrationDatabases } from '../../../test/helpers/migration-database.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../../db/client.ts';
import { migrate } from '../../db/migrate.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { insertMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';
import { insertEvents, listEvents } from './history.repo.ts';

/** Migration 0076 on a database holding transaction_events rows of migration 0011: the same events, read through the view. */
const databases = migrationDatabases('history');
let handle: DbHandle;

beforeAll(async () => {
  handle = await databases.before('0076');
}, 120_000);

afterAll(() => databases.closeAll());

const row = (e: { id: string; name: string; context: unknown; created_at: Date }) => ({
  id: e.id,
  name: e.name,
  context: e.context,
  created_at: e.created_at.toISOString(),
});

describe('happy', () => {
  it('keeps every event, its id, name, context, time and order, and writes one row per write afterwards', {
    timeout: 120_000,
  }, async () => {
    const db = handle.db;
    await insertMerchantAccount(db, { id: 'old', display_name: 'old' });
    const txn = uuidv7();
    await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, payment_source, merchant_initiated, is_subsequent_payment)
      VALUES ('old', ${txn}, 'authorization_succeeded', 'authorize', 'succeeded', 'USD', 100, 'ecommerce', false, false)`.execute(
      db,
    );
    const at = new Date('2026-01-01T12:00:00.123Z');
    // Two events of one write (one time) and an older one, as 0011's table held them.
    const old = [
      {
        id: uuidv7(),
        name: 'transaction-updated-status',
        context: { from: 'processing', to: 'authorization_succeeded' },
        created_at: at,
      },
      { id: uuidv7(), name: 'payment-connector-response', context: { amount: 100, error_code: null }, created_at: at },
      { id: uuidv7(), name: 'older', context: {}, created_at: new Date(at.getTime() - 1000) },
    ];
    for (const e of old)
      await sql`INSERT INTO transaction_events (merchant_account_id, id, transaction_id, name, context, created_at)
        VALUES ('old', ${e.id}, ${txn}, ${e.name}, ${JSON.stringify(e.context)}, ${e.created_at})`.execute(db);
    const before = await listEvents(db, 'old', txn, null, 10);
    expect(before.rows.map(row)).toEqual(
      [old[1]!, old[0]!, old[2]!].map((e) => ({ ...e, created_at: e.created_at.toISOString() })),
    );

    expect(await migrate(db)).toContain('0076_history_keyed_by_transaction');
    const after = await listEvents(db, 'old', txn, null, 10);
    expect(after.rows.map(row)).toEqual(before.rows.map(row));
    expect(after).toMatchObject({ hasNext: false, hasPrev: false });
    // A page of one, then the next from its cursor: the order holds across the rows of the old table.
    const second = await listEvents(db, 'old', txn, { direction: 'next', key: [at.toISOString(), old[1]!.id] }, 1);
    expect(second.rows.map((e) => e.id)).toEqual([old[0]!.id]);
    expect(second).toMatchObject({ hasNext: true, hasPrev: true });

    // A new write of three events is one row, read back as three.
    const later = new Date(at.getTime() + 1000);
    const written = ['a', 'b', 'c'].map((name, i) => ({
      merchant_account_id: 'old',
      id: uuidv7(),
      transaction_id: txn,
      name,
      context: JSON.stringify({ i, nested: { list: [1, 'two', null] } }),
      created_at: later,
    }));
    await insertEvents(db, written);
    const stored = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM transaction_history WHERE created_at = ${later}`.execute(db);
    expect(stored.rows[0]!.n).toBe(1);
    const all = await listEvents(db, 'old', txn, null, 10);
    expect(all.rows.slice(0, 3).map((e) => [e.id, e.name, e.context])).toEqual(
      written.reverse().map((e) => [e.id, e.name, JSON.parse(e.context)]),
    );
    expect(all.rows.slice(3).map(row)).toEqual(after.rows.map(row));
  });
});
