import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { keysetQueries } from '../../../db/keyset.ts';
import type { CursorPosition } from '../../../http/cursor.ts';
import { eventsOf } from '../history.repo.ts';

/**
 * GET /transactions/{id}/events reads the view transaction_events, whose rows are expanded from
 * one transaction_history row per write (decision 0150): each page is a range scan of
 * transaction_history_pkey, forwards or backwards, with an incremental sort by the events' ids
 * within one created_at, never a sort of the transaction's whole history (PostgreSQL only: PGlite
 * plans are not representative).
 */

let t: TestApp;
let account: string;
const busy = '00000000-0000-7000-8000-000000000001';

beforeAll(async () => {
  if (!usesPostgres()) return;
  t = await buildTestApp();
  account = await createMerchantAccount(t.deps);
  // 500 transactions of 40 writes each, every other write of two events, and one of 5,000 writes.
  await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, payment_source, merchant_initiated, is_subsequent_payment)
    SELECT ${account}, CASE WHEN n = 0 THEN ${busy}::uuid ELSE gen_random_uuid() END, 'authorization_succeeded', 'authorize', 'succeeded', 'USD', 100, 'ecommerce', false, false
    FROM generate_series(0, 500) AS n`.execute(t.deps.db);
  await sql`INSERT INTO transaction_history (merchant_account_id, id, transaction_id, name, context, more, created_at)
    SELECT ${account}, gen_random_uuid(), t.id, 'transaction-updated-status', '{}',
      CASE WHEN w % 2 = 0 THEN jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'name', 'second', 'context', '{}'::jsonb)) END,
      now() - w * interval '1 minute'
    FROM transactions t, generate_series(1, CASE WHEN t.id = ${busy}::uuid THEN 5000 ELSE 40 END) AS w
    WHERE t.merchant_account_id = ${account}`.execute(t.deps.db);
  await sql`ANALYZE transaction_history`.execute(t.deps.db);
});
afterAll(async () => t?.close());

async function plan(position: CursorPosition | null): Promise<string[]> {
  const { pageQuery, probeQuery } = keysetQueries(eventsOf(t.deps.db, account, busy), {
    columns: ['created_at', 'id'],
    limit: 20,
    position,
    boundFirst: true,
  });
  const plans: string[] = [];
  for (const query of probeQuery ? [pageQuery, probeQuery] : [pageQuery]) {
    const rows = await query.explain<{ 'QUERY PLAN': string }>();
    plans.push(rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  return plans;
}

const middle = () => [new Date(Date.now() - 2500 * 60_000).toISOString(), '00000000-0000-7000-8000-000000000000'];

describe.skipIf(!usesPostgres())('happy', () => {
  it.each<[string, () => CursorPosition | null]>([
    ['the first page', () => null],
    ['a next page', () => ({ direction: 'next', key: middle() })],
    ['a previous page', () => ({ direction: 'prev', key: middle() })],
    ['a page from an empty page’s cursor', () => ({ direction: 'next', key: middle(), inclusive: true })],
  ])(
    'answers %s (and its probe) from transaction_history_pkey, without sorting the history',
    async (_name, position) => {
      for (const text of await plan(position())) {
        expect(text).toContain('transaction_history_pkey');
        expect(text).not.toContain('Seq Scan');
        // An incremental sort (by id within one created_at) only: no sort of every event read.
        expect(text).not.toMatch(/(^|->)\s*Sort\s+\(/m);
        if (position()) expect(text).toMatch(/Index Cond: .*created_at [<>]=/);
      }
    },
  );
});
