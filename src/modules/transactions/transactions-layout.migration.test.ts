import { sql } from 'kysely';
import { migrationDatabases } from '../../../test/helpers/migration-database.ts';
import { afterAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../../db/client.ts';
import { listMigrations, migrate } from '../../db/migrate.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { sqlState } from '../../errors/pg-errors.ts';
import { insertMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';

/**
 * 0075 rebuilds transactions with its columns in another order and fillfactor 60 (decision 0149),
 * on a database that already holds transactions: the rows, the columns' definitions, the
 * constraints, indexes, statistics and the other tables' foreign keys to it come out as they were.
 */
const databases = migrationDatabases('layout');
const databaseBefore = databases.before;
type Db = DbHandle['db'];

afterAll(() => databases.closeAll());

const rowsOf = async <T>(db: Db, query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;

/** Everything about the table but its column order and storage parameters. */
async function catalog(db: Db) {
  return {
    rows: await rowsOf(db, sql`SELECT to_jsonb(t) AS row FROM transactions t ORDER BY id`),
    columns: await rowsOf(
      db,
      sql`SELECT column_name, data_type, datetime_precision, is_nullable, column_default FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'transactions' ORDER BY column_name`,
    ),
    constraints: await rowsOf(
      db,
      sql`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'transactions'::regclass ORDER BY conname`,
    ),
    references: await rowsOf(
      db,
      sql`SELECT conrelid::regclass::text AS tab, conname, pg_get_constraintdef(oid) AS def, convalidated FROM pg_constraint
        WHERE confrelid = 'transactions'::regclass AND conrelid <> 'transactions'::regclass ORDER BY 1, 2`,
    ),
    indexes: await rowsOf(
      db,
      sql`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'transactions' ORDER BY indexname`,
    ),
    statistics: await rowsOf(
      db,
      sql`SELECT stxname, pg_get_statisticsobjdef(oid) AS def FROM pg_statistic_ext WHERE stxrelid = 'transactions'::regclass ORDER BY stxname`,
    ),
  };
}

async function insertTransaction(db: Db, account: string, id: string, status: string, extra: string) {
  await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, authorized_amount,
      capture_limit, captured_amount, method, payment_method, card_fingerprint, payment_service_id, payment_service, buyer,
      buyer_email_address, payment_source, merchant_initiated, is_subsequent_payment, metadata, additional_identifiers, actions,
      authorized_at, captured_at, payment_service_transaction_id, anti_fraud_decision, created_at, updated_at)
    VALUES (${account}, ${id}, ${status}, 'authorize', 'succeeded', 'USD', 1299, 1299, 1299, 500, 'card',
      '{"bin": "41111111", "label": "1111", "scheme": "visa"}', 'fp-1', ${uuidv7()}, '{"id": "svc", "display_name": "Cards"}',
      '{"display_name": "Ada"}', 'ada@example.com', 'ecommerce', false, false, ${extra}::jsonb, '{"authorization_id": "auth_1"}',
      '[{"id": "route-transaction"}]', '2025-06-01T10:00:00.123Z', '2025-06-01T10:00:01.456Z', 'psp-1', 'accept',
      '2025-06-01T10:00:00.000Z', '2025-06-01T10:00:02.000Z')`.execute(db);
}

describe('happy', () => {
  it('0075 keeps the rows, columns, constraints, indexes, statistics and foreign keys to transactions', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databaseBefore('0075');
    const account = 'layout-a';
    await insertMerchantAccount(db, { id: account, display_name: account });
    const first = uuidv7();
    const second = uuidv7();
    await insertTransaction(db, account, first, 'capture_succeeded', '{"order": "o-1"}');
    await insertTransaction(db, account, second, 'authorization_succeeded', 'null');
    await sql`INSERT INTO transaction_attempts (merchant_account_id, id, transaction_id, operation, status, amount)
      VALUES (${account}, ${uuidv7()}, ${first}, 'authorize', 'succeeded', 1299)`.execute(db);
    const before = await catalog(db);
    expect(before.rows).toHaveLength(2);
    expect(before.references.length).toBeGreaterThan(0);

    // 0075 alone: later migrations may change the tables it compares (0076 renames transaction_events).
    expect(
      await migrate(
        db,
        listMigrations().filter((m) => m.version < '0076'),
      ),
    ).toContain('0075_transactions_answer_columns_together');
    expect(await catalog(db)).toEqual(before);

    const options = await rowsOf<{ reloptions: string[] | null }>(
      db,
      sql`SELECT reloptions FROM pg_class WHERE oid = 'transactions'::regclass`,
    );
    expect(options[0]!.reloptions).toEqual(['fillfactor=60']);
    // The layout the WAL figure depends on: insert-only columns, then the answer's, then the rest.
    const order = await rowsOf<{ attname: string }>(
      db,
      sql`SELECT attname FROM pg_attribute WHERE attrelid = 'transactions'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    );
    const at = (name: string) => order.findIndex((c) => c.attname === name);
    expect(at('merchant_account_id')).toBe(0);
    expect(at('anti_fraud_service_id')).toBeLessThan(at('status'));
    expect(at('status')).toBeLessThan(at('updated_at'));
    expect(at('updated_at')).toBeLessThan(at('refunded_amount'));
    expect(order.at(-1)!.attname).toBe('actions');
  });
});

describe('sad', () => {
  it('after 0075 the foreign keys to transactions still refuse a row naming no transaction', {
    timeout: 120_000,
  }, async () => {
    // Up to 0077: 0078 drops these two keys (decision 0155, hot-tables.migration.test.ts).
    const { db } = await databaseBefore('0078');
    const account = 'layout-b';
    await insertMerchantAccount(db, { id: account, display_name: account });
    const error =
      await sql`INSERT INTO transaction_attempts (merchant_account_id, id, transaction_id, operation, status)
      VALUES (${account}, ${uuidv7()}, ${uuidv7()}, 'authorize', 'in_flight')`
        .execute(db)
        .catch((e: unknown) => e);
    expect(sqlState(error)).toBe('23503');
    const orphan =
      await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount,
        payment_source, merchant_initiated, is_subsequent_payment)
      VALUES ('no-such-account', ${uuidv7()}, 'processing', 'authorize', 'pending', 'USD', 1, 'ecommerce', false, false)`
        .execute(db)
        .catch((e: unknown) => e);
    expect(sqlState(orphan)).toBe('23503');
  });
});
