import { sql } from 'kysely';
import { arrayLiteral } from '../../db/group-commit-sql.ts';
import type { Executor } from '../../db/transaction.ts';
import type { ChainEntry, ChainLink } from './audit-chain.ts';

/** Ids as one array literal sent as text (the same on both drivers, whatever each does with an array). */
const uuids = (ids: readonly string[]): string => arrayLiteral(ids, 'uuid') ?? '{}';

/** The content columns as one JSON array per entry (raw values: the verifier encodes them itself). */
const CONTENT = sql`json_build_array(a.id, a.action, a.resource_type, a.resource_id, a.resource_name, a.user_id,
  a.user_name, a.user_email_address, a.user_is_staff, a.operation_id, a.request_id,
  (extract(epoch FROM a.created_at) * 1000000)::bigint::text)`;

type ContentRow = [
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
];

/** An entry as read, its link's fields still empty (`joinLink` fills them in place: one object per entry). */
const toContent = (merchantAccountId: string, r: ContentRow): ChainEntry => ({
  merchant_account_id: merchantAccountId,
  seq: 0,
  id: r[0],
  action: r[1],
  resource_type: r[2],
  resource_id: r[3],
  resource_name: r[4],
  user_id: r[5],
  user_name: r[6],
  user_email_address: r[7],
  user_is_staff: r[8],
  operation_id: r[9],
  request_id: r[10],
  // Whole microseconds as text: exact on both databases, whatever the column's precision.
  created_us: r[11],
  prev_hash: '',
  hash: '',
});

/*
 * Pages come as one JSON value: one value to decode instead of one per column and row, which on
 * PGlite makes a read about ten times faster. Ranges, not LIMITs where a range exists: whatever
 * plan the statistics of a freshly loaded table lead to, a page reads only its own rows.
 */

/** A bound given as a value or as a subquery. */
type SqlBound = number | ReturnType<typeof sql>;

/**
 * The links held by an account's batches (migration 0079) with first places from `fromSeq` to
 * `uptoSeq`, in seq order (batches in first_seq order, each expanded in place order). A batch as
 * one line of text, values apart by spaces (no value holds one), ids by commas: cheaper to build
 * and to split than JSON.
 */
async function batchLinks(db: Executor, merchantAccountId: string, fromSeq: SqlBound, uptoSeq: number) {
  const { rows } = await sql<{ page: string | null }>`
    SELECT string_agg(first_seq::text || ' ' || encode(prev_hash, 'hex') || ' ' || array_to_string(audit_log_ids, ',')
      || ' ' || encode(hashes, 'hex'), chr(10) ORDER BY first_seq) AS page
    FROM audit_chain_batches
    WHERE merchant_account_id = ${merchantAccountId} AND first_seq >= ${fromSeq} AND first_seq <= ${uptoSeq}`.execute(
    db,
  );
  const links: ChainLink[] = [];
  for (const batch of rows[0]!.page?.split('\n') ?? []) {
    const [first, prev, ids, hashes] = batch.split(' ') as [string, string, string, string];
    let seq = Number(first);
    let prevHash = prev;
    let at = 0;
    for (const id of ids.split(',')) {
      const hash = hashes.slice(at, at + 64);
      links.push({ seq, id, prev_hash: prevHash, hash });
      prevHash = hash;
      seq++;
      at += 64;
    }
  }
  return links;
}

/**
 * The links of whole batches, those whose first place is after `afterSeq` and up to `uptoSeq`,
 * batch after batch: the verifier's pages (each batch is read once, so a batch overlapping another, a fork,
 * is seen whole). A range of the primary key whatever the batches' sizes.
 */
export function listBatchLinks(
  db: Executor,
  merchantAccountId: string,
  afterSeq: number,
  uptoSeq: number,
): Promise<ChainLink[]> {
  return batchLinks(db, merchantAccountId, afterSeq + 1, uptoSeq);
}

/** The links of an account's chain at places `afterSeq` + 1 to `uptoSeq`, in seq order. */
export async function listChainLinks(
  db: Executor,
  merchantAccountId: string,
  afterSeq: number,
  uptoSeq: number,
): Promise<ChainLink[]> {
  // From the batch that holds place afterSeq + 1.
  const from = sql`coalesce((SELECT max(first_seq) FROM audit_chain_batches
    WHERE merchant_account_id = ${merchantAccountId} AND first_seq <= ${afterSeq + 1}), ${afterSeq + 1})`;
  const links = await batchLinks(db, merchantAccountId, from, uptoSeq);
  return links.filter((l) => l.seq > afterSeq && l.seq <= uptoSeq);
}

/** The first place (after `afterSeq`) at which an account's batches hold the entry `id`: a scan of the batches. */
export async function findLinkedSeq(
  db: Executor,
  merchantAccountId: string,
  id: string,
  afterSeq = 0,
): Promise<number | null> {
  const { rows } = await sql<{ seq: string }>`
    SELECT b.first_seq + t.k - 1 AS seq
    FROM audit_chain_batches b, unnest(b.audit_log_ids) WITH ORDINALITY AS t(id, k)
    WHERE b.merchant_account_id = ${merchantAccountId} AND t.id = ${id}::uuid AND b.first_seq + t.k - 1 > ${afterSeq}
    ORDER BY 1 LIMIT 1`.execute(db);
  return rows[0] ? Number(rows[0].seq) : null;
}

/**
 * Up to `limit` entries of an account with ids after `afterId` and up to `uptoId` (null: no
 * bound), in id order. With both bounds a page is a range whatever plan the statistics lead to
 * (a LIMIT alone can be planned as a sort of every later entry, for every page).
 */
export async function listEntriesBetween(
  db: Executor,
  merchantAccountId: string,
  afterId: string | null,
  uptoId: string | null,
  limit: number,
): Promise<ChainEntry[]> {
  const after = afterId === null ? sql`` : sql`AND id > ${afterId}::uuid`;
  const upto = uptoId === null ? sql`` : sql`AND id <= ${uptoId}::uuid`;
  const { rows } = await sql<{ page: string }>`
    SELECT coalesce(json_agg(${CONTENT} ORDER BY a.id), '[]')::text AS page
    FROM (SELECT * FROM audit_logs WHERE merchant_account_id = ${merchantAccountId} ${after} ${upto}
      ORDER BY id LIMIT ${limit}) AS a`.execute(db);
  return (JSON.parse(rows[0]!.page) as ContentRow[]).map((r) => toContent(merchantAccountId, r));
}

/** The entries of an account with these ids (those that exist). */
export async function findEntries(db: Executor, merchantAccountId: string, ids: string[]): Promise<ChainEntry[]> {
  const { rows } = await sql<{ page: string }>`
    SELECT coalesce(json_agg(${CONTENT}), '[]')::text AS page
    FROM audit_logs a WHERE a.merchant_account_id = ${merchantAccountId} AND a.id = ANY (${uuids(ids)}::uuid[])`.execute(
    db,
  );
  return (JSON.parse(rows[0]!.page) as ContentRow[]).map((r) => toContent(merchantAccountId, r));
}

/**
 * The links at places `afterSeq` + 1 to `uptoSeq` with their entries (`absent` when a link names
 * an entry that is gone): a simple read of the chain for tests and tools (the verifier reads the
 * two in order and matches them, which is faster).
 */
export async function listChainEntries(
  db: Executor,
  merchantAccountId: string,
  afterSeq: number,
  uptoSeq: number,
): Promise<ChainEntry[]> {
  const links = await listChainLinks(db, merchantAccountId, afterSeq, uptoSeq);
  const found = new Map(
    (
      await findEntries(
        db,
        merchantAccountId,
        links.map((l) => l.id),
      )
    ).map((e) => [e.id, e]),
  );
  return links.map((l) => joinLink(l, found.get(l.id), merchantAccountId));
}

/** The entry read for a link, given the link's fields in place, or one marked `absent` with empty content. */
export function joinLink(link: ChainLink, entry: ChainEntry | undefined, merchantAccountId: string): ChainEntry {
  if (entry) {
    // An entry two links name (a tampered chain) is copied for the second.
    if (entry.seq !== 0) entry = { ...entry };
    entry.seq = link.seq;
    entry.prev_hash = link.prev_hash;
    entry.hash = link.hash;
    return entry;
  }
  return {
    merchant_account_id: merchantAccountId,
    seq: link.seq,
    id: link.id,
    absent: true,
    action: '',
    resource_type: '',
    resource_id: '',
    resource_name: '',
    user_id: null,
    user_name: '',
    user_email_address: null,
    user_is_staff: false,
    operation_id: null,
    request_id: null,
    created_us: '',
    prev_hash: link.prev_hash,
    hash: link.hash,
  };
}

/** The highest place an account's batches hold (0 for none): an index lookup. */
export async function maxChainSeq(db: Executor, merchantAccountId: string): Promise<number> {
  const { rows } = await sql<{ seq: string }>`
    SELECT first_seq + length(hashes) / 32 - 1 AS seq FROM audit_chain_batches
    WHERE merchant_account_id = ${merchantAccountId} ORDER BY first_seq DESC LIMIT 1`.execute(db);
  return Number(rows[0]?.seq ?? 0);
}

export async function findChainHead(db: Executor, merchantAccountId: string) {
  return db
    .selectFrom('audit_chain_heads')
    .select(['merchant_account_id', 'seq', 'hash'])
    .where('merchant_account_id', '=', merchantAccountId)
    .executeTakeFirst();
}

/** Every account's head (a small table: one row per merchant account with a linked entry). */
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
            .select('a.id')
            .whereRef('a.merchant_account_id', '=', 'merchant_accounts.id'),
        ),
      ]),
    )
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Links queued entries (migration 0072, `svc_audit_seal`): up to `maxEntries` in one transaction,
 * account by account; `wait` waits for an account another sealer holds instead of skipping it.
 * Returns how many were linked.
 */
export async function sealQueuedEntries(db: Executor, maxEntries: number, wait: boolean): Promise<number> {
  const { rows } = await sql<{ sealed: number }>`
    SELECT svc_audit_seal(${maxEntries}::int, ${wait}::boolean) AS sealed`.execute(db);
  return rows[0]!.sealed;
}

/** VACUUM of the sealer's queue (not inside a transaction). */
export async function vacuumQueue(db: Executor): Promise<void> {
  await sql`VACUUM audit_chain_pending`.execute(db);
}

/** An entry of the account with no link: queued for the sealer or not. */
export interface UnlinkedEntry {
  id: string;
  created_at: Date;
  queued: boolean;
}

/**
 * The first entry (of those `among`, or of all), in (created_at, id) order, that has no link and
 * either is not queued or was written more than `queuedForSeconds` ago. Entries `among` are those
 * a verification found in no link up to place `checkedSeq`: only the batches from the one holding
 * that place on are searched for them (those linked since it read the head); without `among`,
 * every batch of the account is. With no index on the linked ids (decision 0157) the candidates
 * minus the linked ids is an `EXCEPT` (hashed or sorted: linear whatever the planner's estimate of
 * `unnest`, where an anti-join was planned as a nested loop, quadratic). One statement, so one
 * snapshot: an entry is linked or queued in it, never neither while the sealer moves it.
 */
export async function firstUnlinkedEntry(
  db: Executor,
  merchantAccountId: string,
  queuedForSeconds: number,
  among: string[] | null = null,
  checkedSeq = 0,
): Promise<UnlinkedEntry | undefined> {
  const candidates =
    among === null
      ? sql`SELECT id FROM audit_logs WHERE merchant_account_id = ${merchantAccountId}`
      : sql`SELECT unnest(${uuids(among)}::uuid[]) AS id`;
  const from =
    among === null
      ? sql`0`
      : sql`coalesce((SELECT max(first_seq) FROM audit_chain_batches
          WHERE merchant_account_id = ${merchantAccountId} AND first_seq <= ${checkedSeq}), 0)`;
  const { rows } = await sql<UnlinkedEntry>`
    WITH unlinked AS (
      ${candidates}
      EXCEPT
      SELECT unnest(audit_log_ids) FROM audit_chain_batches
      WHERE merchant_account_id = ${merchantAccountId} AND first_seq >= ${from}
    )
    SELECT a.id, a.created_at, p.audit_log_id IS NOT NULL AS queued
    FROM unlinked u
    JOIN audit_logs a ON a.merchant_account_id = ${merchantAccountId} AND a.id = u.id
    LEFT JOIN audit_chain_pending p
      ON p.merchant_account_id = a.merchant_account_id AND p.created_at = a.created_at AND p.audit_log_id = a.id
    WHERE p.audit_log_id IS NULL OR a.created_at < now() - make_interval(secs => ${queuedForSeconds})
    ORDER BY a.created_at, a.id
    LIMIT 1`.execute(db);
  return rows[0];
}
