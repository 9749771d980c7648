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

  const prepared = async () => (await client.query(`SELECT name FROM pg_prepared_statements WHERE statement LIKE $1`, [`%FROM ${table} WHERE%`])).rows.length;

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
      for (let i = 0; i < 8; i++) await client.query(`INSERT INTO ${table} VALUES ($1, $2) ON CONFLICT (k) WHERE active = $3 DO NOTHING`, ['a', true, true]);
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
