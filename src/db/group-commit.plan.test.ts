import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../test/helpers/factories.ts';
import type { Runtime } from '../deps.ts';
import { uuidv7 } from '../lib/ids.ts';
import { updateTransactionIfStatusQuery } from '../modules/transactions/transactions.repo.ts';
import { selectByKeysQuery } from './keyed-queries.ts';
import { parameterTypes } from './group-commit.ts';
import {
  groupedArrays,
  groupedText,
  jsonArrays,
  jsonRows,
  readShape,
  writeShape,
  type WriteShape,
} from './group-commit-sql.ts';

/**
 * A grouped statement finds its members' rows by the whole key, whatever the statistics say of the
 * account: here `transactions` was analyzed while another account held every row, then the new
 * account got a history of its own. On those statistics a custom plan (the values known, as in a
 * prepared statement's first executions) expects about one row for the new account. While the
 * keys' `= any(array)` copies showed it their values, it kept only the account as the index
 * condition and filtered the ids, reading the account's whole history for every statement
 * (decision 0106). The copies now read their arrays
 * through a sub-select (src/db/group-commit-sql.ts).
 */

let runtime: Runtime;
let dispose: () => Promise<void>;
let fresh: string;
const ids: string[] = [];

const insertRows = (account: string, rows: number) =>
  sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, method, payment_source, merchant_initiated, is_subsequent_payment)
    SELECT ${account}, gen_random_uuid(), 'processing', 'authorize', 'pending', 'USD', 100, 'card', 'ecommerce', false, false
    FROM generate_series(1, ${rows}::int)`.execute(runtime.deps.db);

beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
  // Statistics only when the test takes them, also where the server's autovacuum is on.
  await sql`alter table transactions set (autovacuum_enabled = false)`.execute(runtime.deps.db);
  const big = await createMerchantAccount(runtime.deps);
  fresh = await createMerchantAccount(runtime.deps);
  await insertRows(big, 3000);
  await sql`analyze transactions`.execute(runtime.deps.db);
  await insertRows(fresh, 2000);
  const { rows } = await sql<{
    id: string;
  }>`select id from transactions where merchant_account_id = ${fresh} order by id limit 31`.execute(runtime.deps.db);
  ids.push(...rows.map((r) => r.id));
});
afterAll(async () => dispose?.());

/** The array types PostgreSQL gives `text`'s parameters, as `GroupCommit` reads them. */
async function arrayTypes(text: string, shape: WriteShape): Promise<string[]> {
  const types = (await parameterTypes(runtime.deps.db, text, `plan_probe_${uuidv7().slice(-12)}`))!;
  return shape.rowParams[0]!.map((n) => types[n - 1]!);
}

/** `query` grouped for one member per id: the statement and its arrays, as `GroupCommit` sends them. */
async function grouped(
  query: (id: string) => CompiledQuery,
  shapeOf: (text: string) => WriteShape | null,
): Promise<CompiledQuery> {
  const members = ids.map((id) => query(id));
  const text = members[0]!.sql;
  const shape = shapeOf(text)!;
  expect(shape).not.toBeNull();
  const types = await arrayTypes(text, shape);
  const json = jsonArrays(shape, types);
  const arrays = groupedArrays(
    shape,
    members.map((m) => m.parameters),
  ).map((values, i) => (json[i] ? jsonRows(values) : values));
  return CompiledQuery.raw(
    groupedText(shape, 0, types, json),
    json.some(Boolean) ? [...arrays, members.length] : arrays,
  );
}

/** The plan of `statement`, its arrays bound as values (a custom plan). */
async function planOf(statement: CompiledQuery): Promise<string> {
  const { rows } = await runtime.deps.db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]),
  );
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The key's columns both in the index condition of the primary key, and no id filtered after it. */
function expectWholeKey(plan: string, table: string): void {
  expect(plan).toContain(`Index Scan using ${table}_pkey`);
  // A sub-select's array prints as `$0` (PostgreSQL 15) or `(InitPlan 1).col1` (17, PGlite).
  const value = String.raw`(?:ANY \((?:\$\d+|\(InitPlan \d+\)\.col\d+)\)|v\.\w+)`;
  expect(plan).toMatch(
    new RegExp(String.raw`Index Cond: \(\(merchant_account_id = ${value}\) AND \(id = ${value}\)\)`),
  );
  expect(plan).not.toMatch(/Filter: \(id = ANY/);
}

describe('happy', () => {
  it("a grouped update of a new account's transactions looks each one up by its whole key", async () => {
    const stats = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stats where tablename = 'transactions' and schemaname = current_schema() and attname = 'merchant_account_id'`.execute(
      runtime.deps.db,
    );
    expect(stats.rows[0]!.n).toBe(1);
    const statement = await grouped(
      (id) =>
        updateTransactionIfStatusQuery(
          runtime.deps.db,
          fresh,
          id,
          'processing',
          { status: 'authorization_succeeded' },
          new Date(),
        ).compile(),
      writeShape,
    );
    expectWholeKey(await planOf(statement), 'transactions');
  });

  it("a grouped read of a new account's transactions looks each one up by its whole key", async () => {
    const statement = await grouped(
      (id) =>
        selectByKeysQuery(runtime.deps.db, 'transactions', [
          ['merchant_account_id', fresh],
          ['id', id],
        ]).compile(),
      readShape,
    );
    expectWholeKey(await planOf(statement), 'transactions');
    // The statement the plan is of reads each member's own row.
    const { rows } = await runtime.deps.db.executeQuery<{ id: string; svc_member: string | number }>(statement);
    expect(rows.map((r) => [Number(r.svc_member), r.id]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      ids.map((id, i) => [i + 1, id]),
    );
  });
});
