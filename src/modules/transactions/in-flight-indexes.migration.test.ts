import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationDatabases } from '../../../test/helpers/migration-database.ts';
import type { DbHandle } from '../../db/client.ts';
import { migrate } from '../../db/migrate.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { insertMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';
import { listTransactions } from './list/list-transactions.repo.ts';
import { toFilter } from './list/list-transactions.service.ts';

/**
 * Migration 0077 on a database holding transactions of migration 0075, one of them in flight with
 * 'pending' as phase 1 wrote it then: every row listed once, before and after, and the filter
 * indexes partial (decision 0154).
 */
const databases = migrationDatabases('in-flight');
let handle: DbHandle;

beforeAll(async () => {
  handle = await databases.before('0077');
}, 120_000);

afterAll(() => databases.closeAll());

const PARTIAL = [
  'list',
  'created',
  'status',
  'buyer',
  'buyer_ext',
  'buyer_email',
  'external',
  'payment_method',
  'payment_service',
  'checkout_session',
  'fingerprint',
  'metadata',
  'ip',
  'bin',
  'label',
  'buyer_name',
].map((name) => `transactions_${name}_idx`);

async function insert(db: DbHandle['db'], status: string, outcome: string | null, at: Date) {
  const id = uuidv7();
  await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, method,
      card_fingerprint, payment_source, merchant_initiated, is_subsequent_payment, created_at, updated_at)
    VALUES ('old', ${id}, ${status}, 'authorize', ${outcome}, 'USD', 100, 'card', 'fp-1', 'ecommerce', false, false, ${at}, ${at})`.execute(
    db,
  );
  return id;
}

const listed = async (db: DbHandle['db'], query: Record<string, unknown> = {}) =>
  (await listTransactions(db, 'old', toFilter({ limit: 10, ...query }), null, 10)).rows.map((row) => row.id);

describe('happy', () => {
  it('keeps the rows and their outcomes, lists each once, and indexes answered rows only', {
    timeout: 120_000,
  }, async () => {
    const db = handle.db;
    await insertMerchantAccount(db, { id: 'old', display_name: 'old' });
    const at = new Date('2026-12-01T12:00:00.000Z');
    const answered = await insert(db, 'authorization_succeeded', 'succeeded', at);
    // In flight when the migration runs: stays 'pending', in the filter indexes, read by the answered branch.
    const oldInFlight = await insert(db, 'processing', 'pending', new Date(at.getTime() + 1000));

    expect(await migrate(db)).toContain('0077_in_flight_rows_out_of_filter_indexes');
    const outcomes = await sql<{ id: string; intent_outcome: string | null }>`
      SELECT id, intent_outcome FROM transactions WHERE merchant_account_id = 'old' ORDER BY id`.execute(db);
    expect(outcomes.rows).toEqual(
      [
        { id: answered, intent_outcome: 'succeeded' },
        { id: oldInFlight, intent_outcome: 'pending' },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );

    // A row inserted now, in flight: NULL is allowed, and it is listed once, with the others.
    const inFlight = await insert(db, 'processing', null, new Date(at.getTime() + 2000));
    expect(await listed(db)).toEqual([inFlight, oldInFlight, answered]);
    expect(await listed(db, { status: ['processing'] })).toEqual([inFlight, oldInFlight]);
    expect(await listed(db, { payment_method_fingerprint: 'fp-1' })).toEqual([inFlight, oldInFlight, answered]);

    // This schema's only: another test file's migration may be dropping indexes of its own meanwhile.
    const indexes = await sql<{ indexname: string; indexdef: string }>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'transactions'`.execute(
      db,
    );
    const definition = new Map(indexes.rows.map((row) => [row.indexname, row.indexdef]));
    for (const name of PARTIAL) expect(definition.get(name), name).toMatch(/intent_outcome IS NOT NULL/);
    expect(definition.get('transactions_in_flight_idx')).toMatch(/WHERE \(?intent_outcome IS NULL\)?/);
    for (const name of ['transactions_pkey', 'transactions_psp_id_idx', 'transactions_payment_link_idx'])
      expect(definition.get(name), name).not.toMatch(/intent_outcome/);
  });
});
