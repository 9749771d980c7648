import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresSchema } from '../../bench/server.ts';

const url = process.env.TEST_DATABASE_URL;

/**
 * The benchmark's stand-in for autovacuum (bench/server.ts): on a PostgreSQL server with
 * autovacuum off it vacuums and analyzes the tables of its own schema, and only those; with
 * autovacuum on it leaves the work to the server.
 */
describe.skipIf(!url)("bench/server.ts: VACUUM (ANALYZE) of the benchmark's schema", () => {
  it("vacuums and analyzes the schema's tables when autovacuum is off, and says whether it ran", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const schema = await postgresSchema(url!);
    const other = await postgresSchema(url!);
    try {
      const [name, otherName] = [schema.name, other.name];
      for (const s of [name, otherName]) {
        await client.query(`CREATE TABLE ${s}.rows (id int PRIMARY KEY)`);
        await client.query(`INSERT INTO ${s}.rows SELECT generate_series(1, 1000)`);
        await client.query(`DELETE FROM ${s}.rows WHERE id % 2 = 0`);
      }
      const { autovacuum } = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!;
      expect(await schema.vacuumIfNoAutovacuum()).toBe(autovacuum !== 'on');
      if (autovacuum === 'on') return;
      const stats = async (s: string) =>
        (await client.query<{ vacuumed: boolean; analyzed: boolean }>(
          `SELECT last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'rows'`,
          [s],
        )).rows[0]!;
      // The statistics collector reports with a delay of its own: wait for the vacuum to show.
      for (let waited = 0; !(await stats(name)).vacuumed && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      // Whether its dead rows could go depends on the oldest snapshot of the whole server (other
      // files' transactions): not asserted. The statistics are the live rows'.
      expect(await stats(name)).toEqual({ vacuumed: true, analyzed: true });
      expect(await stats(otherName)).toEqual({ vacuumed: false, analyzed: false });
      const { reltuples } = (await client.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = '${name}.rows'::regclass`)).rows[0]!;
      expect(reltuples).toBe(500);
    } finally {
      await schema.drop();
      await other.drop();
      await client.end();
    }
  });

  it("analyzes the schema's own tables only (a bare ANALYZE would take every schema of the database)", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const schema = await postgresSchema(url!);
    const other = await postgresSchema(url!);
    try {
      for (const s of [schema.name, other.name]) {
        await client.query(`CREATE TABLE ${s}.rows (id int PRIMARY KEY)`);
        await client.query(`INSERT INTO ${s}.rows SELECT generate_series(1, 300)`);
      }
      await schema.analyze();
      const reltuples = async (s: string) => (await client.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = '${s}.rows'::regclass`)).rows[0]!.reltuples;
      expect(await reltuples(schema.name)).toBe(300);
      // Never analyzed (-1), unless the server's own autovacuum got there first.
      const { autovacuum } = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]!;
      if (autovacuum !== 'on') expect(await reltuples(other.name)).toBe(-1);
    } finally {
      await schema.drop();
      await other.drop();
      await client.end();
    }
  });

  it("reads the server's shared_buffers and its counters of backends' own buffer writes and checkpoints", async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const schema = await postgresSchema(url!);
    try {
      expect(schema.sharedBuffers).toBe((await client.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]!.shared_buffers);
      const before = await schema.bufferWrites();
      // PostgreSQL 17 and later keep these counters elsewhere: null there.
      const version = Number((await client.query<{ server_version_num: string }>('SHOW server_version_num')).rows[0]!.server_version_num);
      if (version >= 170000) return expect(before).toBeNull();
      expect(before).toEqual({ backend: expect.any(Number), checkpoints: expect.any(Number) });
      await client.query('CHECKPOINT');
      const after = (await schema.bufferWrites())!;
      // The statistics are reported with a delay of their own.
      for (let waited = 0; after.checkpoints === before!.checkpoints && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        Object.assign(after, await schema.bufferWrites());
      }
      expect(after.checkpoints).toBeGreaterThan(before!.checkpoints);
      expect(after.backend).toBeGreaterThanOrEqual(before!.backend);
    } finally {
      await schema.drop();
      await client.end();
    }
  });
});
