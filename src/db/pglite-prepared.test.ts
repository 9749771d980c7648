import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedSession } from './pglite-prepared.ts';

describe('named prepared statements (PGlite)', () => {
  let client: PGlite;
  let session: PreparedSession;

  beforeAll(async () => {
    client = new PGlite({ parsers: { 20: (v: string) => Number(v) } });
    await client.exec(
      `CREATE TABLE t (id int PRIMARY KEY, name text, doc jsonb, tags text[], at timestamptz, raw bytea)`,
    );
    session = new PreparedSession(client);
  });
  afterAll(() => client.close());

  const prepared = async () =>
    (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'svc_%'`))
      .rows[0]!.n;

  it('answers as PGlite.query does, once named too, for every kind of parameter and column', async () => {
    const insert = 'INSERT INTO t (id, name, doc, tags, at, raw) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *';
    const at = new Date('2026-12-07T10:00:00.123Z');
    const raw = new Uint8Array([0, 1, 255]);
    const doc = { a: [1, { b: null }], s: "it's" };
    for (let id = 1; id <= 5; id++) {
      const mine = await session.query(insert, [id, `n${id}`, doc, ['x', 'y,z'], at, raw]);
      await client.query('DELETE FROM t WHERE id = $1', [id]);
      const theirs = await client.query(insert, [id, `n${id}`, doc, ['x', 'y,z'], at, raw]);
      expect(mine.rows).toEqual(theirs.rows);
      expect(mine.affectedRows).toBe(1);
    }
    const select = 'SELECT id, name, $2::bigint AS big, NULL::text AS nothing FROM t WHERE id = $1';
    for (let i = 0; i < 4; i++)
      expect((await session.query(select, [2, 9007199254740991])).rows).toEqual([
        { id: 2, name: 'n2', big: 9007199254740991, nothing: null },
      ]);
    const update = 'UPDATE t SET name = $1 WHERE id > $2';
    for (let i = 0; i < 3; i++) expect((await session.query(update, ['u', 3])).affectedRows).toBe(2);
    expect(await prepared()).toBe(3);
  });

  it("a failing named statement throws the database's error and leaves the session usable", async () => {
    const text = 'INSERT INTO t (id, name) VALUES ($1, $2)';
    for (let i = 0; i < 3; i++) await session.query(text, [100 + i, 'x']);
    await expect(session.query(text, [100, 'again'])).rejects.toMatchObject({ code: '23505' });
    expect((await session.query(text, [200, 'y'])).affectedRows).toBe(1);
  });

  it('survives a migration that changes a prepared SELECT *: the text runs again unnamed', async () => {
    const text = 'SELECT * FROM t WHERE id = $1';
    for (let i = 0; i < 4; i++) await session.query(text, [1]);
    await client.exec(`ALTER TABLE t ADD COLUMN extra text DEFAULT 'x'`);
    expect((await session.query<{ extra: string }>(text, [1])).rows[0]?.extra).toBe('x');
    expect((await session.query<{ extra: string }>(text, [1])).rows[0]?.extra).toBe('x');
  });

  it('inside a transaction the changed plan fails the statement (withTransaction retries the transaction)', async () => {
    const text = 'SELECT id, name FROM t WHERE id = $1 OR id = $1';
    for (let i = 0; i < 4; i++) await session.query(text, [1]);
    await client.exec('ALTER TABLE t ALTER COLUMN name TYPE varchar(20)');
    await client.exec('BEGIN');
    await expect(session.query(text, [1])).rejects.toMatchObject({ code: '0A000' });
    await client.exec('ROLLBACK');
    expect((await session.query(text, [1])).rows).toEqual([{ id: 1, name: 'n1' }]);
  });
});
