import { sql, type Expression } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { keysetBranchQueries } from '../../../db/keyset.ts';
import { countsInQuery } from '../../metrics-explorer/metrics.repo.ts';
import { transactionsModel } from '../../reports/models/transactions.model.ts';
import { LIST_ORDER, transactionsBranches } from '../list/list-transactions.repo.ts';
import { toFilter } from '../list/list-transactions.service.ts';
import type { ListTransactionsQuery } from '../list/list-transactions.schema.ts';

/** The common filters of GET /transactions are answered from indexes (PostgreSQL only: PGlite plans are not representative). */

let t: TestApp;
let account: string;
let buyerId: string;

/** 20,000 transactions per account over two accounts, with the spread of a real list (40 of them in flight: no intent_outcome). */
async function seed(merchantAccountId: string) {
  await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, method, payment_method, card_fingerprint,
      buyer_id, buyer, buyer_external_identifier, buyer_email_address, ip_address, external_identifier, error_code, payment_source, merchant_initiated,
      is_subsequent_payment, metadata, created_at, updated_at)
    SELECT ${merchantAccountId}, gen_random_uuid(), (ARRAY['authorization_succeeded','capture_succeeded','authorization_declined','authorization_voided','processing'])[1 + n % 5],
      'authorize', CASE WHEN n % 500 <> 4 THEN 'succeeded' END, 'USD', 100 + n % 1000, 'card', jsonb_build_object('bin', lpad(((n * 7919) % 100000)::text, 8, '4'), 'label', lpad((n % 10000)::text, 4, '0')),
      'fp-' || (n % 6000), CASE WHEN n % 3 = 0 THEN gen_random_uuid() END, jsonb_build_object('display_name', 'Buyer ' || (n % 4000)), 'bext-' || (n % 4000),
      'buyer' || (n % 4000) || '@example.com', '10.0.' || (n % 250) || '.' || (n / 250 % 250), 'order-' || n, CASE WHEN n % 5 = 2 THEN 'insufficient_funds' END,
      'ecommerce', false, false, CASE WHEN n % 10 = 0 THEN jsonb_build_object('order_id', 'o' || n) END, now() - n * interval '1 minute', now() - n * interval '1 minute'
    FROM generate_series(1, 20000) AS n`.execute(t.deps.db);
}

beforeAll(async () => {
  if (!usesPostgres()) return;
  t = await buildTestApp();
  account = await createMerchantAccount(t.deps);
  await seed(account);
  await seed(await createMerchantAccount(t.deps));
  await sql`ANALYZE transactions`.execute(t.deps.db);
  const row = await t.deps.db
    .selectFrom('transactions')
    .select('buyer_id')
    .where('merchant_account_id', '=', account)
    .where('buyer_id', 'is not', null)
    .executeTakeFirstOrThrow();
  buyerId = row.buyer_id!;
});
afterAll(async () => t?.close());

/** The page query keysetPage runs: both branches (decision 0154) with the filter, newest update first, limit + 1 each, merged. */
async function plan(query: Partial<ListTransactionsQuery>, cursor = false): Promise<string> {
  const branches = transactionsBranches(t.deps.db, account, toFilter({ limit: 20, ...query }));
  const position = cursor
    ? {
        direction: 'next' as const,
        key: [new Date(Date.now() - 600_000).toISOString(), 'ffffffff-ffff-7fff-bfff-ffffffffffff'],
      }
    : null;
  const { pageQuery, probeQuery } = keysetBranchQueries(branches, { columns: LIST_ORDER, limit: 20, position });
  const explain = async (statement: typeof pageQuery) =>
    (await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${statement}`.execute(t.deps.db)).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
  return [await explain(pageQuery), ...(probeQuery ? [await explain(probeQuery)] : [])].join('\n');
}

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();

describe.skipIf(!usesPostgres())('happy', () => {
  it.each<[string, () => Partial<ListTransactionsQuery>, string[]]>([
    ['no filter', () => ({}), ['transactions_list_idx']],
    ['status', () => ({ status: ['authorization_declined'] }), ['transactions_status_idx']],
    ['buyer_id', () => ({ buyer_id: buyerId }), ['transactions_buyer_idx']],
    ['external_identifier', () => ({ external_identifier: 'order-42' }), ['transactions_external_idx']],
    ['payment_method_fingerprint', () => ({ payment_method_fingerprint: 'fp-42' }), ['transactions_fingerprint_idx']],
    [
      'updated_at range',
      () => ({ updated_at_gte: hourAgo(), updated_at_lte: new Date().toISOString() }),
      ['transactions_list_idx'],
    ],
    [
      'status and updated_at range',
      () => ({ status: ['capture_succeeded'], updated_at_gte: hourAgo() }),
      ['transactions_status_idx'],
    ],
    [
      'buyer_search',
      () => ({ buyer_search: ['buyer 42', 'bext-43'] }),
      ['transactions_buyer_name_idx', 'transactions_buyer_ext_idx', 'transactions_buyer_email_idx'],
    ],
    ['search', () => ({ search: 'order-77' }), ['transactions_external_idx', 'transactions_psp_id_idx']],
    ['ip_address', () => ({ ip_address: '10.0.1.2' }), ['transactions_ip_idx']],
    ['payment_method_bin', () => ({ payment_method_bin: '444412' }), ['transactions_bin_idx']],
    ['payment_method_label', () => ({ payment_method_label: '4242' }), ['transactions_label_idx']],
    ['metadata', () => ({ metadata: ['{"order_id":"o420"}'] }), ['transactions_metadata_idx']],
  ])('answers %s from its index', async (_name, query, indexes) => {
    const text = await plan(query());
    for (const index of [...indexes, 'transactions_in_flight_idx']) expect(text).toContain(index);
    expect(text).not.toContain('Seq Scan');
  });

  it('reads both branches of a page after a cursor, and its probe, from their indexes', async () => {
    const text = await plan({}, true);
    expect(text.match(/transactions_list_idx/g)?.length).toBe(2);
    expect(text.match(/transactions_in_flight_idx/g)?.length).toBe(2);
    expect(text).not.toContain('Seq Scan');
  });
});

/** The other readers of the partial filter indexes (decision 0154). */
describe.skipIf(!usesPostgres())('other readers', () => {
  const explain = async (statement: Expression<unknown>) =>
    (await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${statement}`.execute(t.deps.db)).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');

  it('metrics count the answered rows of a window from transactions_created_idx', async () => {
    const text = await explain(
      countsInQuery({
        merchantAccountId: account,
        source: 'authorization',
        window: { start: new Date(Date.now() - 3_600_000), end: new Date() },
        filters: [],
        currency: 'USD',
      }),
    );
    expect(text).toContain('transactions_created_idx');
    expect(text).not.toContain('Seq Scan');
  });

  it('the transactions report reads a period from transactions_created_idx and transactions_in_flight_idx', async () => {
    const query = transactionsModel.query(
      t.deps.db,
      account,
      { filters: { created_at: { start: hourAgo(), end: new Date().toISOString() } } },
      { timeZone: 'UTC', reference: new Date(), revealPii: false },
    );
    const text = await explain(query);
    expect(text).toContain('transactions_created_idx');
    expect(text).toContain('transactions_in_flight_idx');
    expect(text).not.toContain('Seq Scan');
  });
});
