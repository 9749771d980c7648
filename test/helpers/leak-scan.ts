import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/**
 * The leak scan of the wallet payment flows: none of `secrets` (device tokens, cryptograms, card
 * numbers) in any response body the test kept, any log line, or any row of any table.
 */
export async function expectNoSecrets(t: TestApp, bodies: readonly string[], secrets: readonly string[]): Promise<void> {
  const clean = (where: string, text: string) => {
    for (const secret of secrets) expect(text.includes(secret), `${where} contains ${secret.slice(0, 4)}…`).toBe(false);
  };
  bodies.forEach((body, i) => clean(`response ${i}`, body));
  t.logs.forEach((line, i) => clean(`log line ${i}`, line));
  const tables = await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(t.deps.db);
  expect(tables.rows.length).toBeGreaterThan(20);
  for (const { table_name } of tables.rows) {
    const rows = await sql<{ text: string }>`SELECT row_to_json(r)::text AS text FROM ${sql.table(table_name)} r`.execute(t.deps.db);
    clean(table_name, rows.rows.map((r) => r.text).join('\n'));
  }
}
