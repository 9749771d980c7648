import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { genericPlan } from '../../../test/helpers/generic-plan.ts';
import type { Runtime } from '../../deps.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { updateTransactionIfStatusQuery, updateTransactionIfUnchangedQuery } from './transactions.repo.ts';

/**
 * The guarded updates (an authorization's answer; a capture's or a refund's reservation and a
 * capture's answer, guarded by the values read, `updated_at` among them) find their row by primary key even
 * when the planner has no statistics (a new database, PGlite before its first ANALYZE job, a
 * server without autovacuum) and keeps a generic plan, as it does for a prepared statement.
 */

let runtime: Runtime;
let dispose: () => Promise<void>;
let account: string;

beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
  account = await createMerchantAccount(runtime.deps);
  // No statistics until the test has run, also where the server's autovacuum is on (this file's own schema).
  await sql`alter table transactions set (autovacuum_enabled = false)`.execute(runtime.deps.db);
  // A history, every row of which once was `processing`; no ANALYZE afterwards.
  await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, method, payment_source, merchant_initiated, is_subsequent_payment)
    SELECT ${account}, gen_random_uuid(), 'authorization_succeeded', 'authorize', 'succeeded', 'USD', 100, 'card', 'ecommerce', false, false
    FROM generate_series(1, 2000)`.execute(runtime.deps.db);
});
afterAll(async () => dispose?.());

describe('happy', () => {
  it('finds the transaction by its primary key, not through the status index, without statistics', async () => {
    const stats = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stats where tablename = 'transactions' and schemaname = current_schema()`.execute(
      runtime.deps.db,
    );
    expect(stats.rows[0]!.n).toBe(0);
    const query = updateTransactionIfStatusQuery(
      runtime.deps.db,
      account,
      uuidv7(),
      'processing',
      { status: 'authorization_succeeded' },
      new Date(),
    ).compile();
    const plan = await genericPlan(runtime.deps.db, query);
    expect(plan).toContain('transactions_pkey');
    expect(plan).not.toContain('transactions_status_idx');
  });

  it('the update guarded by the values it read finds the transaction by its primary key too, not through the list index', async () => {
    const read = {
      status: 'authorization_succeeded' as const,
      authorized_amount: 100,
      capture_limit: 100,
      captured_amount: 0,
      capture_reserved: 0,
      capture_closed: false,
      refunded_amount: 0,
      refund_reserved: 0,
      updated_at: new Date(),
    };
    const query = updateTransactionIfUnchangedQuery(runtime.deps.db, account, uuidv7(), {
      basis: read,
      add: { capture_reserved: 100 },
      patch: { capture_closed: true },
      updatedAt: new Date(),
    }).compile();
    const plan = await genericPlan(runtime.deps.db, query);
    expect(plan).toContain('transactions_pkey');
    expect(plan).not.toMatch(/transactions_(status|list)_idx/);
  });
});
