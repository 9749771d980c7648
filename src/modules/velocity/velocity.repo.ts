import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';
import '../../db/schema-velocity.ts';
import { CARD_CAP } from './velocity-window.ts';

export interface VelocityRow {
  merchant_account_id: string;
  writer: string;
  key_mac: string;
  currency: string;
  bucket_start: Date;
  attempts: number;
  declines: number;
  amount: number;
  cards: string[];
}

/** A stored cell as read back: times in epoch ms and the card set joined, which both drivers parse cheaply. */
export interface StoredVelocityRow {
  merchant_account_id: string;
  key_mac: string;
  currency: string;
  bucket_ms: number;
  attempts: number;
  declines: number;
  amount: number;
  cards: string[];
  updated_ms: number;
}

interface RawVelocityRow extends Omit<StoredVelocityRow, 'cards' | 'amount'> {
  amount: number | string;
  /** Card MACs joined by commas (base64url has none); '' for none. */
  cards: string;
}

const COLUMNS = sql.raw(`merchant_account_id, key_mac, currency,
  (extract(epoch FROM bucket_start) * 1000)::float8 AS bucket_ms, attempts, declines, amount,
  array_to_string(cards, ',') AS cards, (extract(epoch FROM updated_at) * 1000)::float8 AS updated_ms`);

const stored = (row: RawVelocityRow): StoredVelocityRow => ({
  ...row,
  amount: Number(row.amount),
  cards: row.cards === '' ? [] : row.cards.split(','),
});

/** Rows per statement: each column goes as one array parameter, so this bounds only a statement's size. */
const ROWS_PER_STATEMENT = 5_000;
/** Merchant accounts per read (one parameter each). */
const ACCOUNTS_PER_READ = 1_000;

/**
 * Adds counts to their cells, creating them: the counts of several processes add up, and their
 * card sets merge (at most CARD_CAP, the lowest kept; a set already holding the added cards is left
 * as it is). One statement per 5,000 cells, each column one array parameter (decision 0142): the
 * drivers serialize 8 arrays, not 8 parameters per cell. Rows go in key order, so two processes
 * flushing the same keys lock them in the same order. `updated_at` and `writer` mark the change for
 * the other processes' reads, and the new totals come back (a process sharing the table does not
 * read its own writes again).
 */
export async function addVelocityCounts(db: Executor, rows: readonly VelocityRow[]): Promise<StoredVelocityRow[]> {
  const totals: StoredVelocityRow[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const part = rows.slice(i, i + ROWS_PER_STATEMENT);
    const column = <K extends keyof VelocityRow>(key: K) => part.map((row) => row[key]);
    const result = await sql<RawVelocityRow>`
      INSERT INTO velocity_counts
        (merchant_account_id, key_mac, currency, bucket_start, attempts, declines, amount, cards, writer)
      SELECT u.merchant_account_id, u.key_mac, u.currency, u.bucket_start, u.attempts, u.declines, u.amount,
        CASE WHEN u.cards = '' THEN '{}'::text[] ELSE string_to_array(u.cards, ',') END, ${part[0]!.writer}
      FROM unnest(${column('merchant_account_id')}::text[], ${column('key_mac')}::text[], ${column('currency')}::text[],
        ${part.map((row) => row.bucket_start.toISOString())}::timestamptz[], ${column('attempts')}::integer[],
        ${column('declines')}::integer[], ${column('amount')}::bigint[], ${part.map((row) => row.cards.join(','))}::text[])
        WITH ORDINALITY AS u (merchant_account_id, key_mac, currency, bucket_start, attempts, declines, amount, cards, n)
      ORDER BY u.n
      ON CONFLICT (merchant_account_id, key_mac, currency, bucket_start) DO UPDATE SET
        attempts = velocity_counts.attempts + excluded.attempts,
        declines = velocity_counts.declines + excluded.declines,
        amount = velocity_counts.amount + excluded.amount,
        cards = CASE WHEN excluded.cards <@ velocity_counts.cards THEN velocity_counts.cards ELSE (
          SELECT coalesce(array_agg(c ORDER BY c), '{}') FROM (
            SELECT DISTINCT c FROM unnest(velocity_counts.cards || excluded.cards) AS u (c) ORDER BY c LIMIT ${CARD_CAP}) AS s) END,
        updated_at = now(), writer = excluded.writer
      RETURNING ${COLUMNS}`.execute(db);
    for (const row of result.rows) totals.push(stored(row));
  }
  return totals;
}

/** The database's clock: where a process's reads of changes start. */
export async function databaseNow(db: Executor): Promise<Date> {
  const { rows } = await sql<{ now: Date }>`SELECT now() AS now`.execute(db);
  return new Date(rows[0]!.now);
}

/** One merchant account's cells of the buckets from `since` on (`before`: up to, not including). */
export async function velocityWindow(
  db: Executor,
  merchantAccountId: string,
  since: Date,
  before: Date | null = null,
): Promise<StoredVelocityRow[]> {
  const { rows } = await sql<RawVelocityRow>`
    SELECT ${COLUMNS} FROM velocity_counts
    WHERE merchant_account_id = ${merchantAccountId} AND bucket_start >= ${since}
      ${before ? sql`AND bucket_start < ${before}` : sql``}`.execute(db);
  return rows.map(stored);
}

/**
 * The cells of these merchant accounts that other processes than `writer` changed at or after
 * `since`, with the database's clock now.
 */
export async function changedVelocityCounts(
  db: Executor,
  merchantAccountIds: readonly string[],
  since: Date,
  writer: string,
): Promise<{ rows: StoredVelocityRow[]; now: Date }> {
  const now = await databaseNow(db);
  const rows: StoredVelocityRow[] = [];
  for (let i = 0; i < merchantAccountIds.length; i += ACCOUNTS_PER_READ) {
    // One statement per group of accounts; each account's read uses (merchant_account_id, updated_at).
    const part = await sql<RawVelocityRow>`
      SELECT ${COLUMNS} FROM velocity_counts
      WHERE merchant_account_id = ANY(${merchantAccountIds.slice(i, i + ACCOUNTS_PER_READ)}::text[])
        AND updated_at >= ${since} AND writer <> ${writer}`.execute(db);
    for (const row of part.rows) rows.push(stored(row));
  }
  return { rows, now };
}

/** A row of a sole writer's journal (decision 0146): one account's entries of one minute, as text (velocity-journal.ts). */
export interface JournalRow {
  merchant_account_id: string;
  bucket_start: Date;
  id: string;
  cells: string;
}

/** Journal rows per insert (four parameters each). */
const JOURNAL_ROWS_PER_STATEMENT = 1_000;

/** Deletes the journal rows of these accounts' minutes (a sole writer compacting them, decision 0146). */
export async function deleteJournalMinutes(
  db: Executor,
  minutes: ReadonlyArray<{ merchantAccountId: string; bucket: number }>,
): Promise<void> {
  if (minutes.length === 0) return;
  await sql`
    DELETE FROM velocity_journal
    WHERE (merchant_account_id, bucket_start) IN (
      SELECT * FROM unnest(${minutes.map((m) => m.merchantAccountId)}::text[],
        ${minutes.map((m) => new Date(m.bucket).toISOString())}::timestamptz[]))`.execute(db);
}

export async function insertJournalRows(db: Executor, rows: readonly JournalRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += JOURNAL_ROWS_PER_STATEMENT)
    await db
      .insertInto('velocity_journal')
      .values(rows.slice(i, i + JOURNAL_ROWS_PER_STATEMENT))
      .execute();
}

/** The account's journal rows of the minutes from `since` on (`before`: up to, not including); the primary key's range. */
export async function velocityJournal(
  db: Executor,
  merchantAccountId: string,
  since: Date,
  before: Date | null = null,
): Promise<Array<{ id: string; bucket_ms: number; cells: string }>> {
  const { rows } = await sql<{ id: string; bucket_ms: number; cells: string }>`
    SELECT id, (extract(epoch FROM bucket_start) * 1000)::float8 AS bucket_ms, cells FROM velocity_journal
    WHERE merchant_account_id = ${merchantAccountId} AND bucket_start >= ${since}
      ${before ? sql`AND bucket_start < ${before}` : sql``}`.execute(db);
  return rows;
}

/** Deletes up to `batch` journal rows of minutes that started before `before`; how many it deleted. */
export async function purgeVelocityJournal(db: Executor, before: Date, batch = 10_000): Promise<number> {
  const result = await sql`
    DELETE FROM velocity_journal
    WHERE (merchant_account_id, bucket_start, id) IN (
      SELECT merchant_account_id, bucket_start, id
      FROM velocity_journal WHERE bucket_start < ${before} LIMIT ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Deletes up to `batch` cells of buckets that started before `before`; how many it deleted. */
export async function purgeVelocityBuckets(db: Executor, before: Date, batch = 10_000): Promise<number> {
  const result = await sql`
    DELETE FROM velocity_counts
    WHERE (merchant_account_id, key_mac, currency, bucket_start) IN (
      SELECT merchant_account_id, key_mac, currency, bucket_start
      FROM velocity_counts WHERE bucket_start < ${before} LIMIT ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
