import { sql, type RawBuilder } from 'kysely';
import type { MetricsSource } from '../../db/schema-insights.ts';
import type { Executor } from '../../db/transaction.ts';
import type { Interval } from './datetime-range.ts';
import { moduleExpression, type ModuleKey } from './dimensions.ts';

/** The counts every metric is derived from (docs/insights.md, "Formulas"). */
export interface Counts {
  total: number;
  authorized: number;
  declined: number;
  flowDeclines: number;
  /** Minor units of the asked currency, authorized transactions only. */
  volume: number;
}

export interface AggregateQuery {
  merchantAccountId: string;
  source: MetricsSource;
  window: Interval;
  filters: RawBuilder<boolean>[];
  /** The currency whose authorized amounts make the volume, or null. */
  currency: string | null;
}

/**
 * What each source counts. Authorization (and monitoring): every transaction; authorized and
 * declined by status; a flow decline is a decline by a rule (`error_code` `flow_…`). Authentication:
 * transactions whose 3DS ended, authenticated when it completed.
 */
function measures(source: MetricsSource) {
  if (source === 'authentication') {
    return {
      population: sql<boolean>`three_d_secure->>'status' IS NOT NULL`,
      authorized: sql<boolean>`three_d_secure->>'status' = 'complete'`,
      declined: sql<boolean>`three_d_secure->>'status' <> 'complete'`,
      flow: sql<boolean>`false`,
    };
  }
  return {
    population: sql<boolean>`true`,
    authorized: sql<boolean>`status IN ('authorization_succeeded', 'capture_succeeded')`,
    declined: sql<boolean>`status = 'authorization_declined'`,
    flow: sql<boolean>`left(error_code, 5) = 'flow_'`,
  };
}

function countColumns(q: AggregateQuery) {
  const m = measures(q.source);
  return sql`count(*)::int AS total,
    (count(*) FILTER (WHERE ${m.authorized}))::int AS authorized,
    (count(*) FILTER (WHERE ${m.declined}))::int AS declined,
    (count(*) FILTER (WHERE ${m.declined} AND ${m.flow}))::int AS flow_declines,
    coalesce(sum(amount) FILTER (WHERE ${m.authorized} AND currency = ${q.currency}), 0)::bigint AS volume`;
}

/**
 * The rows of the window: a range scan of `transactions_created_idx`, then the filters. Answered
 * rows only (the index's predicate): a transaction awaiting its connector has no outcome to count
 * yet, and is counted once answered (decision 0154).
 */
function where(q: AggregateQuery) {
  const conditions = [
    sql<boolean>`merchant_account_id = ${q.merchantAccountId}`,
    sql<boolean>`intent_outcome IS NOT NULL`,
    sql<boolean>`created_at >= ${q.window.start}`,
    sql<boolean>`created_at < ${q.window.end}`,
    measures(q.source).population,
    ...q.filters,
  ];
  return sql.join(conditions, sql` AND `);
}

type CountRow = { total: number; authorized: number; declined: number; flow_declines: number; volume: string | number };

const toCounts = (r: CountRow): Counts => ({
  total: Number(r.total),
  authorized: Number(r.authorized),
  declined: Number(r.declined),
  flowDeclines: Number(r.flow_declines),
  volume: Number(r.volume),
});

/** The statement of `countsIn` (exported for the EXPLAIN test). */
export function countsInQuery(q: AggregateQuery) {
  return sql<CountRow>`SELECT ${countColumns(q)} FROM transactions WHERE ${where(q)}`;
}

/** Counts over the whole window. */
export async function countsIn(db: Executor, q: AggregateQuery): Promise<Counts> {
  const { rows } = await countsInQuery(q).execute(db);
  return toCounts(rows[0]!);
}

/** Counts per bucket of `stepMs` from `origin` (bucket 0 starts at origin); buckets without rows are absent. */
export async function countsByBucket(
  db: Executor,
  q: AggregateQuery,
  origin: Date,
  stepMs: number,
): Promise<Map<number, Counts>> {
  const { rows } = await sql<CountRow & { bucket: number }>`
    SELECT floor(extract(epoch FROM (created_at - ${origin}::timestamptz)) * 1000 / ${stepMs})::int AS bucket, ${countColumns(q)}
    FROM transactions WHERE ${where(q)} GROUP BY 1`.execute(db);
  return new Map(rows.map((r) => [Number(r.bucket), toCounts(r)]));
}

export interface GroupCounts extends Counts {
  key: string | null;
  /** The payment service's name, for that module. */
  name: string | null;
}

/** Counts per value of a module's dimension. Metadata groups by each key-value pair of a row. */
export async function countsByModule(db: Executor, q: AggregateQuery, module: ModuleKey): Promise<GroupCounts[]> {
  if (module === 'metadata') {
    const { rows } = await sql<CountRow & { key: string; name: null }>`
      SELECT jsonb_build_object(kv.key, kv.value)::text AS key, NULL AS name, ${countColumns(q)}
      FROM transactions CROSS JOIN LATERAL jsonb_each_text(coalesce(metadata, '{}'::jsonb)) kv
      WHERE ${where(q)} GROUP BY 1`.execute(db);
    return rows.map((r) => ({ ...toCounts(r), key: r.key, name: null }));
  }
  const name = module === 'payment_service' ? sql`max(payment_service->>'display_name')` : sql`NULL`;
  const { rows } = await sql<CountRow & { key: string | null; name: string | null }>`
    SELECT ${moduleExpression(module)} AS key, ${name} AS name, ${countColumns(q)}
    FROM transactions WHERE ${where(q)} GROUP BY 1`.execute(db);
  return rows.map((r) => ({ ...toCounts(r), key: r.key, name: r.name }));
}
