import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresSchema, type PostgresSchema } from '../../bench/server.ts';

const url = process.env.TEST_DATABASE_URL;

/** Runs `fn` with a client and two throw-away schemas, each holding a table `rows`, then drops them. */
async function withTwoSchemas(
  rows: { insert: number; deleteEven?: boolean },
  fn: (client: pg.Client, schema: PostgresSchema, other: PostgresSchema) => Promise<void>,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const schema = await postgresSchema(url!);
  const other = await postgresSchema(url!);
  try {
    for (const s of [schema.name, other.name]) {
      await client.query(`CREATE TABLE ${s}.rows (id int PRIMARY KEY)`);
      await client.query(`INSERT INTO ${s}.rows SELECT generate_series(1, ${rows.insert})`);
      if (rows.deleteEven) await client.query(`DELETE FROM ${s}.rows WHERE id % 2 = 0`);
    }
    await fn(client, schema, other);
  } finally {
    await schema.drop();
    await other.drop();
    await client.end();
  }
}

const setting = async (client: pg.Client, name: string) =>
  (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
const reltuples = async (client: pg.Client, schema: string) =>
  (await client.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE oid = '${schema}.rows'::regclass`))
    .rows[0]!.reltuples;

/**
 * The benchmark's stand-in for autovacuum (bench/server.ts): on a PostgreSQL server with
 * autovacuum off it vacuums and analyzes the tables of its own schema, and only those; with
 * autovacuum on it leaves the work to the server. Also the server counters it logs per scenario.
 */
describe.skipIf(!url)("bench/server.ts: VACUUM (ANALYZE) of the benchmark's schema", () => {
  it("vacuums and analyzes the schema's tables when autovacuum is off, and says whether it ran", async () => {
    await withTwoSchemas({ insert: 1000, deleteEven: true }, async (client, schema, other) => {
      const autovacuum = await setting(client, 'autovacuum');
      expect(await schema.vacuumIfNoAutovacuum()).toBe(autovacuum !== 'on');
      if (autovacuum === 'on') return;
      const stats = async (s: string) =>
        (
          await client.query<{ vacuumed: boolean; analyzed: boolean }>(
            `SELECT last_vacuum IS NOT NULL AS vacuumed, last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'rows'`,
            [s],
          )
        ).rows[0]!;
      // The statistics collector reports with a delay of its own: wait for the vacuum to show.
      for (let waited = 0; !(await stats(schema.name)).vacuumed && waited < 5000; waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      // Whether its dead rows could go depends on the oldest snapshot of the whole server (other
      // files' transactions): not asserted. The statistics are the live rows'.
      expect(await stats(schema.name)).toEqual({ vacuumed: true, analyzed: true });
      expect(await stats(other.name)).toEqual({ vacuumed: false, analyzed: false });
      expect(await reltuples(client, schema.name)).toBe(500);
    });
  });

  it("analyzes the schema's own tables only (a bare ANALYZE would take every schema of the database)", async () => {
    await withTwoSchemas({ insert: 300 }, async (client, schema, other) => {
      await schema.analyze();
      expect(await reltuples(client, schema.name)).toBe(300);
      // Never analyzed (-1), unless the server's own autovacuum got there first.
      if ((await setting(client, 'autovacuum')) !== 'on') expect(await reltuples(client, other.name)).toBe(-1);
    });
  });

  it("reads the server's shared_buffers and its counters of backends' own buffer writes and checkpoints", async () => {
    await withTwoSchemas({ insert: 1 }, async (client, schema) => {
      expect(schema.sharedBuffers).toBe(await setting(client, 'shared_buffers'));
      const before = await schema.bufferWrites();
      // PostgreSQL 17 and later keep these counters elsewhere: null there.
      if (Number(await setting(client, 'server_version_num')) >= 170000) return expect(before).toBeNull();
      expect(before).toEqual({ backend: expect.any(Number), checkpoints: expect.any(Number) });
      await client.query('CHECKPOINT');
      let after = (await schema.bufferWrites())!;
      // The statistics are reported with a delay of their own.
      for (let waited = 0; after.checkpoints === before!.checkpoints && waited < 5000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        after = (await schema.bufferWrites())!;
      }
      expect(after.checkpoints).toBeGreaterThan(before!.checkpoints);
      expect(after.backend).toBeGreaterThanOrEqual(before!.backend);
    });
    // A CHECKPOINT waits for every dirty buffer of the server: minutes on a shared, busy host.
  }, 180_000);
});
