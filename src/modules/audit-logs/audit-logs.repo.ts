import type { AuditLogRow, AuditLogsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { insertQuery } from '../../db/insert-query.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import { sql, type Insertable } from 'kysely';
import type { ChainEntry } from './audit-chain.ts';

export function insertAuditLogQuery(db: Executor, entry: Insertable<AuditLogsTable>) {
  return insertQuery(db, 'audit_logs', entry);
}

export interface AuditLogFilter {
  action?: AuditLogRow['action'] | undefined;
  userId?: string | undefined;
  resourceType?: string | undefined;
}

/** Each filter has an index (merchant_account_id, <filter>, created_at, id), so every page is a range scan. */
export async function listAuditLogs(
  db: Executor,
  merchantAccountId: string,
  filter: AuditLogFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<AuditLogRow>> {
  let query = db.selectFrom('audit_logs').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.userId) query = query.where('user_id', '=', filter.userId);
  if (filter.resourceType) query = query.where('resource_type', '=', filter.resourceType);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

type PageRow = [
  number,
  string,
  string,
  string,
  string,
  string,
  string | null,
  string,
  string | null,
  boolean,
  string | null,
  string | null,
  string,
  string,
  string,
];

/**
 * The entries of an account's chain at places `afterSeq` + 1 to `uptoSeq`, in seq order. A range
 * of places, not a LIMIT: whatever plan the statistics of a freshly loaded table lead to, a page
 * reads only its own rows. The page comes as one JSON value: one value to decode instead of 16 per
 * entry, which on PGlite makes the read about ten times faster. Raw column values only: the
 * verifier encodes and hashes them itself, trusting no function stored in the database.
 */
export async function listChainEntries(
  db: Executor,
  merchantAccountId: string,
  afterSeq: number,
  uptoSeq: number,
): Promise<ChainEntry[]> {
  const { rows } = await sql<{ page: string }>`
    SELECT coalesce(json_agg(json_build_array(seq, id, action, resource_type, resource_id, resource_name,
        user_id, user_name, user_email_address, user_is_staff, operation_id, request_id,
        (extract(epoch FROM created_at) * 1000000)::bigint::text, encode(prev_hash, 'hex'), encode(hash, 'hex'))
        ORDER BY seq), '[]')::text AS page
    FROM (SELECT * FROM audit_logs WHERE merchant_account_id = ${merchantAccountId}
          AND seq > ${afterSeq} AND seq <= ${uptoSeq} ORDER BY seq) AS a`.execute(db);
  return (JSON.parse(rows[0]!.page) as PageRow[]).map((r) => ({
    merchant_account_id: merchantAccountId,
    seq: r[0],
    id: r[1],
    action: r[2],
    resource_type: r[3],
    resource_id: r[4],
    resource_name: r[5],
    user_id: r[6],
    user_name: r[7],
    user_email_address: r[8],
    user_is_staff: r[9],
    operation_id: r[10],
    request_id: r[11],
    // Whole microseconds as text: exact on both databases, whatever the column's precision.
    created_us: r[12],
    prev_hash: r[13],
    hash: r[14],
  }));
}

/** The highest place an account's entries hold (0 for none): an index lookup. */
export async function maxChainSeq(db: Executor, merchantAccountId: string): Promise<number> {
  const row = await db
    .selectFrom('audit_logs')
    .select('seq')
    .where('merchant_account_id', '=', merchantAccountId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.seq ?? 0;
}

export async function findChainHead(db: Executor, merchantAccountId: string) {
  return db
    .selectFrom('audit_chain_heads')
    .select(['merchant_account_id', 'seq', 'hash'])
    .where('merchant_account_id', '=', merchantAccountId)
    .executeTakeFirst();
}

/** Every account's head (a small table: one row per merchant account with an audit entry). */
export async function listChainHeads(db: Executor) {
  return db
    .selectFrom('audit_chain_heads')
    .select(['merchant_account_id', 'seq', 'hash'])
    .orderBy('merchant_account_id')
    .execute();
}

/** Accounts with a head or an entry: an account whose head row was deleted is still verified. */
export async function listChainAccounts(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('merchant_accounts')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('audit_chain_heads as h')
            .select('h.seq')
            .whereRef('h.merchant_account_id', '=', 'merchant_accounts.id'),
        ),
        eb.exists(
          eb
            .selectFrom('audit_logs as a')
            .select('a.seq')
            .whereRef('a.merchant_account_id', '=', 'merchant_accounts.id'),
        ),
      ]),
    )
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}
