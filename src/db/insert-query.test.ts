import fc from 'fast-check';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compileInsert } from './insert-query.ts';

// Kysely compiling for PostgreSQL without a database: the statements insertQuery must equal.
const kysely = new Kysely<any>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const byKysely = (table: string, rows: Record<string, unknown>[], returningAll: boolean) => {
  const query = kysely.insertInto(table).values(rows);
  const { sql: text, parameters } = (returningAll ? query.returningAll() : query).compile();
  return { sql: text, parameters };
};
const ours = (table: string, rows: Record<string, unknown>[], returningAll: boolean) => {
  const compiled = compileInsert(table, rows, returningAll);
  return compiled && { sql: compiled.sql, parameters: compiled.parameters };
};

describe('compileInsert', () => {
  it('compiles a row as Kysely does, leaving out undefined values', () => {
    const row = {
      id: 'a',
      amount: 10,
      data: null,
      at: new Date(0),
      raw: Buffer.from([1]),
      list: ['x'],
      skipped: undefined,
      'odd"name': true,
    };
    expect(ours('transactions', [row], false)).toEqual(byKysely('transactions', [row], false));
    expect(ours('transactions', [row], true)).toEqual(byKysely('transactions', [row], true));
  });

  it('compiles several rows with columns some lack as Kysely does (default)', () => {
    const rows = [
      { a: 1, b: 2 },
      { b: 3, c: 4 },
      { a: undefined, c: 5 },
    ];
    expect(ours('t', rows, false)).toEqual(byKysely('t', rows, false));
  });

  it('agrees with Kysely on any rows of plain values', () => {
    const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.integer(), fc.string());
    const rows = fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), value), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(rows, fc.boolean(), (generated, returningAll) => {
        // A row Kysely would compile with no column at all is not one any caller writes.
        fc.pre(generated.some((row) => Object.values(row).some((v) => v !== undefined)));
        expect(ours('t', generated, returningAll)).toEqual(byKysely('t', generated, returningAll));
      }),
    );
  });

  it('agrees with Kysely for any table and column names, the same columns in another order included', () => {
    // Kysely reads a dot in a table name as a schema; ours never has one.
    const table = fc.string({ minLength: 1, maxLength: 6 }).filter((t) => !t.includes('.'));
    const name = fc.string({ minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        table,
        fc.uniqueArray(name, { minLength: 1, maxLength: 6 }),
        fc.integer(),
        fc.boolean(),
        (table, columns, n, returningAll) => {
          const row = Object.fromEntries(columns.map((column, i) => [column, n + i]));
          const reversed = Object.fromEntries([...columns].reverse().map((column, i) => [column, n + i]));
          expect(ours(table, [row], returningAll)).toEqual(byKysely(table, [row], returningAll));
          expect(ours(table, [reversed], returningAll)).toEqual(byKysely(table, [reversed], returningAll));
          expect(ours(table, [row, reversed], returningAll)).toEqual(byKysely(table, [row, reversed], returningAll));
        },
      ),
    );
  });

  it('still compiles correctly once its bound of kept shapes is reached', () => {
    // Each column name a new node: past the bound, texts are built each time rather than kept.
    for (let i = 0; i < 6000; i++) {
      const row = { [`bound_${i}`]: i, shared: 'x' };
      expect(ours('bounded', [row], i % 2 === 0)).toEqual(byKysely('bounded', [row], i % 2 === 0));
    }
    expect(ours('bounded', [{ a: 1, b: 2 }], false)).toEqual(byKysely('bounded', [{ a: 1, b: 2 }], false));
  });

  it('gives the same text for the same shape (kept), other texts for other shapes', () => {
    expect(compileInsert('t', [{ a: 1 }], false)!.sql).toBe(compileInsert('t', [{ a: 2 }], false)!.sql);
    expect(compileInsert('t', [{ a: 1 }, { b: 1 }], false)!.sql).not.toBe(
      compileInsert(
        't',
        [
          { a: 1, b: 1 },
          { a: 1, b: 1 },
        ],
        false,
      )!.sql,
    );
  });

  it('leaves rows with expressions, and no rows, to Kysely', () => {
    expect(compileInsert('t', [{ a: sql`now()` }], false)).toBeNull();
    expect(compileInsert('t', [], false)).toBeNull();
  });
});
