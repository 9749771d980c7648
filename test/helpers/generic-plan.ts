import { sql, type CompiledQuery } from 'kysely';
import type { Db } from '../../src/db/client.ts';
import { withTransaction } from '../../src/db/transaction.ts';

/** A parameter as an SQL literal (strings, numbers, dates and null: what the plan tests' statements bind). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  const text = value instanceof Date ? value.toISOString() : String(value);
  return `'${text.replace(/'/g, "''")}'`;
}

/** The generic plan of `query` as a prepared statement (`plan_cache_mode = force_generic_plan`), as text. */
export async function genericPlan(db: Db, query: CompiledQuery): Promise<string> {
  return withTransaction(db, async (tx) => {
    await sql`set local plan_cache_mode = force_generic_plan`.execute(tx);
    await sql.raw(`prepare generic_plan as ${query.sql}`).execute(tx);
    try {
      const { rows } = await sql
        .raw<{ 'QUERY PLAN': string }>(`explain execute generic_plan(${query.parameters.map(literal).join(', ')})`)
        .execute(tx);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await sql`deallocate generic_plan`.execute(tx);
    }
  });
}
