import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/**
 * A short value (a security code, a pin) as a whole token: not next to a character that base64,
 * base64url, hex or the vault's sealed form (`v1.<iv>.<tag>.<ciphertext>`) can hold, on either
 * side. Three digits occur by chance in ciphertext, digests, ids and the fraction of a timestamp,
 * about once in 64³ positions; bounded this way they can only be a whole value of their own, as a
 * real leak is (`"737"`, `,737,` in a row's text, `cvv=737`).
 */
export function wholeToken(code: string): RegExp {
  return new RegExp(`(?<![0-9A-Za-z.+/_-])${code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![0-9A-Za-z.+/=_-])`);
}

/**
 * Below this length a value could occur by chance in encoded text (12 characters: about one chance
 * in 10²¹ per position of base64), so it is looked for as a whole token; from it, anywhere.
 */
const SUBSTRING_SAFE_LENGTH = 12;

export function containsSecret(text: string, secret: string): boolean {
  return secret.length < SUBSTRING_SAFE_LENGTH ? wholeToken(secret).test(text) : text.includes(secret);
}

/**
 * The leak scan of the wallet payment flows: none of `secrets` (device tokens, cryptograms, card
 * numbers) in any response body the test kept, any log line, or any row of any table.
 */
export async function expectNoSecrets(
  t: TestApp,
  bodies: readonly string[],
  secrets: readonly string[],
): Promise<void> {
  const clean = (where: string, text: string) => {
    for (const secret of secrets)
      expect(containsSecret(text, secret), `${where} contains ${secret.slice(0, 4)}…`).toBe(false);
  };
  bodies.forEach((body, i) => clean(`response ${i}`, body));
  t.logs.forEach((line, i) => clean(`log line ${i}`, line));
  const tables = await sql<{
    table_name: string;
  }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(
    t.deps.db,
  );
  expect(tables.rows.length).toBeGreaterThan(20);
  for (const { table_name } of tables.rows) {
    const rows = await sql<{
      text: string;
    }>`SELECT row_to_json(r)::text AS text FROM ${sql.table(table_name)} r`.execute(t.deps.db);
    clean(table_name, rows.rows.map((r) => r.text).join('\n'));
  }
}
