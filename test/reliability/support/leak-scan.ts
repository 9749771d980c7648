import { sql } from 'kysely';
import type { Deps } from '../../../src/context.ts';
import { wholeToken } from '../../helpers/leak-scan.ts';

export interface Needle {
  label: string;
  pattern: RegExp;
}

/**
 * What to look for: a card number in full, also grouped by spaces or dashes (4-4-4-4, 4-6-5), and
 * a security code or pin as a whole token (wholeToken: not inside a longer number, an id, the
 * fraction of a timestamp, a ciphertext or a digest, where three digits occur by chance).
 */
export function needlesOf(numbers: string[], codes: string[]): Needle[] {
  const grouped = (n: string, sep: string) => [
    n.replace(/(\d{4})(?=\d)/g, `$1${sep}`),
    n.length === 15 ? `${n.slice(0, 4)}${sep}${n.slice(4, 10)}${sep}${n.slice(10)}` : null,
  ];
  const needles: Needle[] = [];
  for (const n of numbers) {
    needles.push({ label: `card number ${n}`, pattern: new RegExp(n) });
    for (const sep of [' ', '-'])
      for (const form of grouped(n, sep))
        if (form)
          needles.push({
            label: `card number ${JSON.stringify(form)}`,
            pattern: new RegExp(form.replace(/[-]/g, '\\-')),
          });
  }
  for (const c of codes) needles.push({ label: `security code ${c}`, pattern: wholeToken(c) });
  return needles;
}

/** Each hit: where, what, and the text around it (the needle itself masked out of the report). */
export function scan(where: string, text: string, needles: Needle[]): string[] {
  const hits: string[] = [];
  for (const needle of needles) {
    const match = needle.pattern.exec(text);
    if (match)
      hits.push(
        `${where}: ${needle.label} in …${text.slice(Math.max(0, match.index - 60), match.index)}[HERE]${text.slice(match.index + match[0].length, match.index + match[0].length + 60)}…`,
      );
  }
  return hits;
}

/**
 * Every row of every table of the database the app uses, as PostgreSQL's text form of the row
 * (bytea as hex): a data dump over SQL that works on PGlite and PostgreSQL alike.
 */
export async function dumpAllTables(deps: Deps): Promise<Array<{ table: string; rows: string[] }>> {
  const tables = await sql<{
    table_name: string;
  }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(
    deps.db,
  );
  const dump: Array<{ table: string; rows: string[] }> = [];
  for (const { table_name } of tables.rows) {
    const rows = await sql<{ row: string }>`SELECT t::text AS row FROM ${sql.table(table_name)} t`.execute(deps.db);
    dump.push({ table: table_name, rows: rows.rows.map((r) => r.row) });
  }
  return dump;
}
