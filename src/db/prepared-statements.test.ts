import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparingClient } from './prepared-statements.ts';

const url = process.env.TEST_DATABASE_URL;

// The `pg` driver only: PGlite runs in-process and has no connection to prepare statements on.
describe.skipIf(!url)('named prepared statements (pg)', () => {
  let client: PreparingClient;
  const table = `prep_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    client = new PreparingClient({ connectionString: url });
    await client.connect();
    await client.query(`CREATE TABLE ${table} (id int PRIMARY KEY, name text)`);
    await client.query(`INSERT INTO ${table} VALUES (1, 'one')`);
  });
  afterAll(async () => {
    await client.query(`DROP TABLE IF EXISTS ${table}`);
    await client.end();
  });

  const prepared = async () =>
    (await client.query(`SELECT name FROM pg_prepared_statements WHERE statement LIKE $1`, [`%FROM ${table} WHERE%`]))
      .rows.length;

  it('names a text once it has been seen a few times, and answers the same', async () => {
    const text = `SELECT * FROM ${table} WHERE id = $1`;
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await client.query(text, [1])).rows);
    expect(answers.every((rows) => JSON.stringify(rows) === JSON.stringify([{ id: 1, name: 'one' }]))).toBe(true);
    expect(await prepared()).toBe(1);
  });

  it('survives a migration that changes a prepared SELECT *: the text runs again unnamed', async () => {
    const text = `SELECT * FROM ${table} WHERE id = $1`;
    await client.query(`ALTER TABLE ${table} ADD COLUMN extra text DEFAULT 'x'`);
    const rows = (await client.query(text, [1])).rows;
    expect(rows).toEqual([{ id: 1, name: 'one', extra: 'x' }]);
    // Banned from naming from now on: it keeps working.
    expect((await client.query(text, [1])).rows).toEqual(rows);
  });

  it('inside a transaction the changed plan fails the statement (withTransaction retries the transaction)', async () => {
    const text = `SELECT id, name FROM ${table} WHERE id = $1 OR id = $1`;
    for (let i = 0; i < 4; i++) await client.query(text, [1]);
    await client.query(`ALTER TABLE ${table} ALTER COLUMN name TYPE varchar(20)`);
    await client.query('BEGIN');
    await expect(client.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
    await client.query('ROLLBACK');
    expect((await client.query(text, [1])).rows).toEqual([{ id: 1, name: 'one' }]);
  });

  it("a named statement's rows, built from its remembered columns, equal pg's own for every kind of column", async () => {
    const text = `SELECT id, name, $1::bigint AS big, now() AS at, '{"a":[1,{"b":null}]}'::jsonb AS doc, ARRAY['x','y,z']::text[] AS list, true AS flag, NULL::text AS nothing, 1.50::numeric AS num, id AS id FROM ${table} WHERE id = $2`;
    const plain = new pg.Client({ connectionString: url });
    await plain.connect();
    try {
      const expected = (await plain.query(text, ['9007199254740991', 1])).rows.map((row: Record<string, unknown>) => ({
        ...row,
        at: null,
      }));
      for (let i = 0; i < 6; i++) {
        const rows = (await client.query(text, ['9007199254740991', 1])).rows.map((row: Record<string, unknown>) => ({
          ...row,
          at: null,
        }));
        expect(rows).toEqual(expected);
        expect(Object.keys(rows[0]!)).toEqual(Object.keys(expected[0]!));
      }
      const at = (await client.query(text, ['1', 1])).rows[0].at;
      expect(at).toBeInstanceOf(Date);
      expect(
        await client
          .query(`SELECT name FROM pg_prepared_statements WHERE statement = $1`, [text])
          .then((r: { rows: unknown[] }) => r.rows.length),
      ).toBe(1);
    } finally {
      await plain.end();
    }
  });

  it('a named statement returning no rows, and one failing mid-way, answer as pg does', async () => {
    const text = `SELECT id, 1 / (id - $1) AS q FROM ${table} WHERE id >= $2`;
    for (let i = 0; i < 4; i++) expect((await client.query(text, [0, 5])).rows).toEqual([]);
    expect((await client.query(text, [0, 1])).rows).toEqual([{ id: 1, q: 1 }]);
    await expect(client.query(text, [1, 1])).rejects.toMatchObject({ code: '22012' });
    expect((await client.query(text, [0, 1])).rows).toEqual([{ id: 1, q: 1 }]);
  });

  it('leaves other call forms alone', async () => {
    expect((await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows).toEqual([{ n: 1 }]);
    expect((await client.query({ text: `SELECT $1::int AS v`, values: [7] })).rows).toEqual([{ v: 7 }]);
  });
});

describe.skipIf(!url)('partial unique index conflicts (pg)', () => {
  it('an ON CONFLICT on a partial index with a parameterized predicate keeps working past the generic-plan switch', async () => {
    const client = new PreparingClient({ connectionString: url });
    await client.connect();
    const table = `prep_partial_${process.pid}_${Date.now()}`;
    try {
      await client.query(`CREATE TABLE ${table} (k text, active boolean)`);
      await client.query(`CREATE UNIQUE INDEX ON ${table} (k) WHERE active`);
      for (let i = 0; i < 8; i++)
        await client.query(`INSERT INTO ${table} VALUES ($1, $2) ON CONFLICT (k) WHERE active = $3 DO NOTHING`, [
          'a',
          true,
          true,
        ]);
      expect((await client.query(`SELECT count(*)::int AS n FROM ${table}`)).rows).toEqual([{ n: 1 }]);
    } finally {
      await client.query(`DROP TABLE IF EXISTS ${table}`);
      await client.end();
    }
  });
});

describe.skipIf(!url)('texts without parameters (pg)', () => {
  it('still run several statements in one text, however often', async () => {
    const client = new PreparingClient({ connectionString: url });
    await client.connect();
    try {
      for (let i = 0; i < 5; i++) await client.query('SELECT 1; SELECT 2', []);
    } finally {
      await client.end();
    }
  });
});
