import { sql } from 'kysely';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Deps } from '../context.ts';
import { openDb, type DbHandle } from '../db/client.ts';
import { withTransaction } from '../db/transaction.ts';
import type { JobRow } from '../db/schema.ts';
import { uuidv7 } from '../lib/ids.ts';
import { defineJob } from './job.ts';
import { batchesOf } from './batch-run.ts';
import { JobQueue, type PayloadSchemas } from './queue.ts';

/** Batch jobs (`Job.batch`, decision 0151): claimed together, run in one call, finished or retried one by one. */
let env: Awaited<ReturnType<typeof openTestRuntime>>;
let deps: Deps;
const queues: Array<JobQueue<PayloadSchemas>> = [];
const handles: DbHandle[] = [];

beforeAll(async () => {
  env = await openTestRuntime();
  deps = env.runtime.deps;
});
afterAll(async () => {
  await Promise.all(queues.map((queue) => queue.stop()));
  await Promise.all(handles.map((handle) => handle.close()));
  await env.dispose();
});

const silent = { info() {}, warn() {}, error() {} };

/** A batch job of its own name that records each batch; `failing(n, attempt)` names the items that fail. */
function batchJob(size: number, failing: (n: number, attempt: number) => boolean = () => false) {
  const batches: Array<Array<{ n: number; attempt: number }>> = [];
  const job = defineJob({
    name: `batch-${uuidv7()}`,
    payload: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
    maxAttempts: 3,
    backoffMs: () => 0,
    async handle() {
      throw new Error('a batch job runs in batches');
    },
    batch: {
      size,
      async handle(runs) {
        batches.push(runs.map((run) => ({ n: run.payload.n, attempt: run.attempt })));
        const failures = new Map<string, unknown>();
        for (const run of runs)
          if (failing(run.payload.n, run.attempt)) failures.set(run.jobId, new Error(`item ${run.payload.n} failed`));
        return failures;
      },
    },
  });
  return { job, batches };
}

function newQueue(job: ReturnType<typeof batchJob>['job'], concurrency = 4) {
  const queue = new JobQueue<PayloadSchemas>({ pollMs: 50, concurrency }, [job], silent);
  queues.push(queue);
  return queue;
}

async function enqueue(queue: JobQueue<PayloadSchemas>, name: string, count: number) {
  await withTransaction(deps.db, async (tx) => {
    for (let n = 0; n < count; n++) await queue.enqueue(tx, name, { n }, { runAt: new Date(Date.now() - 1000) });
  });
}

const rowsOf = (name: string) => deps.db.selectFrom('jobs').selectAll().where('name', '=', name).execute();

describe('happy', () => {
  it('claims up to `size` due jobs at once and runs each once, all recorded succeeded', async () => {
    const { job, batches } = batchJob(40);
    const queue = newQueue(job);
    await enqueue(queue, job.name, 130);
    expect(await queue.drain(deps)).toBe(130);
    const ran = batches.flat().map((item) => item.n);
    expect(ran.sort((a, b) => a - b)).toEqual([...Array(130).keys()]);
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(40);
    expect(batches.length).toBeLessThanOrEqual(8);
    const rows = await rowsOf(job.name);
    expect(rows.every((row) => row.status === 'succeeded' && row.attempts === 1 && row.locked_by === null)).toBe(true);
  });

  it('two processes draining at once run each job once, in batches of their own', async () => {
    const { job, batches } = batchJob(25);
    // On PostgreSQL the second "process" gets its own connection pool on the same schema.
    let otherDb = deps.db;
    if (deps.dbKind === 'postgres') {
      const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(deps.db);
      const handle = await openDb({
        databaseUrl: env.config.databaseUrl,
        dataDir: env.config.dataDir,
        schema: rows[0]!.schema,
        poolSize: 5,
      });
      handles.push(handle);
      otherDb = handle.db;
    }
    const [one, two] = [newQueue(job), newQueue(job)];
    await enqueue(one, job.name, 200);
    await Promise.all([one.drain(deps), two.drain({ ...deps, db: otherDb })]);
    const ran = batches.flat().map((item) => item.n);
    expect(ran).toHaveLength(200);
    expect(new Set(ran).size).toBe(200);
    expect((await rowsOf(job.name)).every((row) => row.status === 'succeeded' && row.attempts === 1)).toBe(true);
  });
});

describe('errors', () => {
  it('retries a failing item on its own, with its backoff, and finishes the others of its batch', async () => {
    const { job, batches } = batchJob(50, (n, attempt) => n === 7 && attempt === 1);
    const queue = newQueue(job);
    await enqueue(queue, job.name, 20);
    await queue.drain(deps);
    expect(batches[0]).toHaveLength(20);
    // The retry (backoff 0) is its own batch of one, on its second attempt.
    expect(batches.slice(1)).toEqual([[{ n: 7, attempt: 2 }]]);
    const rows = await rowsOf(job.name);
    expect(rows.filter((row) => row.attempts === 2).map((row) => (row.payload as { n: number }).n)).toEqual([7]);
    expect(rows.find((row) => row.attempts === 2)).toMatchObject({ status: 'succeeded', last_error: null });
    expect(rows.every((row) => row.status === 'succeeded')).toBe(true);
  });

  it('fails an item for good after its last attempt, the others succeeded', async () => {
    const { job } = batchJob(50, (n) => n === 3);
    const queue = newQueue(job);
    await enqueue(queue, job.name, 10);
    await queue.drain(deps);
    const rows = await rowsOf(job.name);
    const failed = rows.filter((row) => row.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ payload: { n: 3 }, attempts: 3, last_error: 'item 3 failed' });
    expect(rows.filter((row) => row.status === 'succeeded')).toHaveLength(9);
  });
});

describe('batchesOf', () => {
  const row = (name: string, id: string) => ({ name, id }) as JobRow;
  it('keeps a plain job alone and gathers a batch job by name, in the order they came', () => {
    const units = batchesOf(
      [row('a', '1'), row('b', '2'), row('a', '3'), row('c', '4'), row('b', '5')],
      (n) => n !== 'c',
    );
    expect(units.map((unit) => [unit.batch, unit.rows.map((r) => r.id)])).toEqual([
      [true, ['1', '3']],
      [true, ['2', '5']],
      [false, ['4']],
    ]);
  });
});
