/**
 * The job queue's own cost per job: `npm run bench:queue`.
 *
 * Fills a fresh database (a throw-away schema on BENCH_DATABASE_URL, else an in-memory PGlite)
 * with BENCH_JOBS jobs (default 3000) of a job that runs one transaction of BENCH_JOB_STATEMENTS
 * reads (default 3; 0: a job that does nothing), then starts one worker (`JobQueue`,
 * JOB_CONCURRENCY at once, default 4) and times it until every job has been recorded `succeeded`.
 * Prints the jobs per second and the queue's own statements per job (its polls and marks: what a
 * Kysely plugin counted, less the jobs' reads; BEGIN and COMMIT pass no plugin). Runs BENCH_ROUNDS
 * times (default 3), each on a database of its own.
 *
 * BENCH_QUEUE_OF names another checkout (a directory with src/ and its node_modules, e.g. from `git worktree
 * add /tmp/before <commit>`): its queue and database code are measured instead of this one's, with
 * this script, so two versions can be run one after the other on the same host.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { positive, whole } from './env.ts';
import { log, postgresSchema } from './server.ts';

const JOBS = positive('BENCH_JOBS', 3000);
const STATEMENTS = whole('BENCH_JOB_STATEMENTS', 3);
const CONCURRENCY = positive('JOB_CONCURRENCY', 4);
const ROUNDS = positive('BENCH_ROUNDS', 3);
const root = path.resolve(process.env.BENCH_QUEUE_OF || path.join(import.meta.dirname, '..'));
const databaseUrl = process.env.BENCH_DATABASE_URL || null;

const load = (file: string) => import(pathToFileURL(path.join(root, file)).href);

async function main(): Promise<void> {
  const { openDb } = await load('src/db/client.ts');
  const { migrate } = await load('src/db/migrate.ts');
  const { JobQueue } = await load('src/jobs/queue.ts');
  const { withTransaction } = await load('src/db/transaction.ts');
  const { sql } = await import('kysely');
  const { Type } = await import('typebox');
  log(
    `the queue of ${root}, ${databaseUrl ? 'PostgreSQL' : 'PGlite (in memory)'}, ${JOBS} jobs of ${STATEMENTS} statements in a transaction, JOB_CONCURRENCY=${CONCURRENCY}`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    const schema = databaseUrl ? await postgresSchema(databaseUrl) : null;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-queue-'));
    const handle = await openDb({ databaseUrl: schema?.databaseUrl ?? null, dataDir, inMemory: true });
    let statements = 0;
    // Counts the statements the worker and its jobs run (each result passes a plugin once).
    const db = handle.db.withPlugin({
      transformQuery: (args: { node: unknown }) => args.node,
      transformResult: async (args: { result: unknown }) => (statements++, args.result),
    });
    try {
      await migrate(handle.db);
      let ran = 0;
      let done: () => void = () => undefined;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const job = {
        name: 'bench-queue',
        payload: Type.Object({ n: Type.Integer() }),
        maxAttempts: 3,
        async handle() {
          if (STATEMENTS > 0)
            await withTransaction(db, async (tx: typeof db) => {
              for (let i = 0; i < STATEMENTS; i++) await sql`select 1`.execute(tx);
            });
        },
      };
      const observer = { jobStarted: () => undefined, jobRun: () => ++ran === JOBS && done() };
      const queue = new JobQueue({ pollMs: 1000, concurrency: CONCURRENCY, observer }, [job], {
        info() {},
        warn() {},
        error() {},
      });
      await sql`INSERT INTO jobs (id, name, payload, max_attempts, run_at)
        SELECT gen_random_uuid(), 'bench-queue', jsonb_build_object('n', g), 3, now() - interval '1 second' FROM generate_series(1, ${JOBS}) g`.execute(
        db,
      );
      if (databaseUrl) await sql`analyze jobs`.execute(db);
      const before = statements;
      const started = performance.now();
      // A worker needs only the database of its dependencies (the job above uses nothing else).
      queue.start({ db });
      await finished;
      await queue.stop();
      const seconds = (performance.now() - started) / 1000;
      const after = statements;
      const left = (
        await sql<{
          n: number;
        }>`select count(*)::int as n from jobs where name = 'bench-queue' and status <> 'succeeded'`.execute(db)
      ).rows[0]!.n;
      if (left !== 0) throw new Error(`${left} jobs not recorded succeeded`);
      console.log(
        `round ${round}: ${JOBS} jobs in ${seconds.toFixed(2)} s, ${Math.round(JOBS / seconds)} jobs/s, ${((after - before) / JOBS - STATEMENTS).toFixed(2)} of the queue's own statements per job`,
      );
    } finally {
      await handle.close();
      await schema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

await main();
