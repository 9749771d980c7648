import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime, usesPostgres } from '../helpers/build-test-app.ts';

// DATABASE_POOL_SIZE bounds the connections a process opens to a PostgreSQL server (PGlite has one).
describe.skipIf(!usesPostgres())('DATABASE_POOL_SIZE', () => {
  let opened: Awaited<ReturnType<typeof openTestRuntime>>;
  beforeAll(async () => {
    opened = await openTestRuntime({ DATABASE_POOL_SIZE: '2' });
  });
  afterAll(async () => opened.dispose());

  it('runs concurrent queries on at most that many connections, all of them answered', async () => {
    const { db } = opened.runtime.deps;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(db)),
    );
    expect(answers).toHaveLength(6);
    expect(new Set(answers.map((a) => a.rows[0]!.pid)).size).toBe(2);
  });
});
