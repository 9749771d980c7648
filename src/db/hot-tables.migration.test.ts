import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationDatabases } from '../../test/helpers/migration-database.ts';
import { sqlState } from '../errors/pg-errors.ts';
import { uuidv7 } from '../lib/ids.ts';
import { insertMerchantAccount } from '../modules/merchant-accounts/merchant-accounts.repo.ts';
import type { DbHandle } from './client.ts';
import { listMigrations, migrate } from './migrate.ts';

/**
 * 0078 (decision 0155) drops the five foreign keys an authorization checked, keeps every other one,
 * and makes the two parents they pointed to permanent: a DELETE, a TRUNCATE or a change of the key
 * of merchant_accounts or transactions fails with SQLSTATE SV003.
 */
const databases = migrationDatabases('hot-tables');
afterAll(() => databases.closeAll());
type Db = DbHandle['db'];

const DROPPED = [
  'audit_chain_pending.audit_chain_pending_merchant_account_id_fkey',
  'audit_logs.audit_logs_merchant_account_id_fkey',
  'transaction_attempts.transaction_attempts_merchant_account_id_transaction_id_fkey',
  'transaction_history.transaction_history_transaction_fkey',
  'transactions.transactions_merchant_account_id_fkey',
];

const foreignKeys = async (db: Db) =>
  (
    await sql<{ key: string }>`SELECT conrelid::regclass::text || '.' || conname AS key FROM pg_constraint
      WHERE contype = 'f' AND connamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) ORDER BY 1`.execute(
      db,
    )
  ).rows.map((r) => r.key);

const failure = (query: { execute(db: Db): Promise<unknown> }, db: Db) =>
  query.execute(db).then(
    () => 'succeeded',
    (error: unknown) => sqlState(error),
  );

async function insertTransaction(db: Db, account: string, id: string) {
  await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount,
      payment_source, merchant_initiated, is_subsequent_payment)
    VALUES (${account}, ${id}, 'processing', 'authorize', 'pending', 'USD', 100, 'ecommerce', false, false)`.execute(
    db,
  );
}

describe('happy', () => {
  it('0078 drops the five keys of the authorization path and keeps every other foreign key and row', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databases.before('0078');
    const account = 'hot-a';
    await insertMerchantAccount(db, { id: account, display_name: account });
    const transactionId = uuidv7();
    await insertTransaction(db, account, transactionId);
    await sql`INSERT INTO transaction_attempts (merchant_account_id, id, transaction_id, operation, status, amount)
      VALUES (${account}, ${uuidv7()}, ${transactionId}, 'authorize', 'in_flight', 100)`.execute(db);
    const keys = await foreignKeys(db);
    expect(keys).toEqual(expect.arrayContaining(DROPPED));

    // 0078 alone: later migrations move tables of their own (0079 replaced audit_chain_links).
    expect(
      await migrate(
        db,
        listMigrations().filter((m) => m.version < '0079'),
      ),
    ).toEqual(['0078_hot_tables_without_foreign_key_checks']);
    expect(await foreignKeys(db)).toEqual(keys.filter((k) => !DROPPED.includes(k)));
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM transaction_attempts
      WHERE merchant_account_id = ${account} AND transaction_id = ${transactionId}`.execute(db);
    expect(rows[0]!.n).toBe(1);

    // Rows these keys checked are now written without a check (the writers take the merchant
    // account from the request and write a transaction's rows with it or after reading it).
    await sql`INSERT INTO transaction_history (merchant_account_id, id, transaction_id, name)
      VALUES (${account}, ${uuidv7()}, ${uuidv7()}, 'transaction-created')`.execute(db);
    // The other rows of the parents still change as before.
    await sql`UPDATE merchant_accounts SET display_name = 'Renamed' WHERE id = ${account}`.execute(db);
    await sql`UPDATE transactions SET status = 'authorization_succeeded', intent_outcome = 'succeeded'
      WHERE merchant_account_id = ${account} AND id = ${transactionId}`.execute(db);
  });
});

describe('sad', () => {
  it('after 0078 merchant accounts and transactions refuse DELETE, TRUNCATE and a new key (SV003)', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databases.before('9999');
    const account = 'hot-b';
    await insertMerchantAccount(db, { id: account, display_name: account });
    const transactionId = uuidv7();
    await insertTransaction(db, account, transactionId);
    const transaction = sql`merchant_account_id = ${account} AND id = ${transactionId}`;

    expect(await failure(sql`DELETE FROM merchant_accounts WHERE id = ${account}`, db)).toBe('SV003');
    // A statement trigger: a DELETE is refused even when it would remove nothing.
    expect(await failure(sql`DELETE FROM merchant_accounts WHERE false`, db)).toBe('SV003');
    expect(await failure(sql`UPDATE merchant_accounts SET id = 'hot-c' WHERE id = ${account}`, db)).toBe('SV003');
    expect(await failure(sql`TRUNCATE merchant_accounts CASCADE`, db)).toBe('SV003');

    expect(await failure(sql`DELETE FROM transactions WHERE ${transaction}`, db)).toBe('SV003');
    expect(await failure(sql`UPDATE transactions SET id = ${uuidv7()} WHERE ${transaction}`, db)).toBe('SV003');
    expect(await failure(sql`UPDATE transactions SET merchant_account_id = 'hot-c' WHERE ${transaction}`, db)).toBe(
      'SV003',
    );
    expect(await failure(sql`TRUNCATE transactions CASCADE`, db)).toBe('SV003');

    const { rows } = await sql<{ accounts: number; transactions: number }>`SELECT
      (SELECT count(*)::int FROM merchant_accounts WHERE id = ${account}) AS accounts,
      (SELECT count(*)::int FROM transactions WHERE ${transaction}) AS transactions`.execute(db);
    expect(rows[0]).toEqual({ accounts: 1, transactions: 1 });
  });
});
