import { sql } from 'kysely';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Deps } from '../context.ts';
import { openDb, type DbHandle } from '../db/client.ts';
import { withTransaction } from '../db/transaction.ts';
import { uuidv7 } from '../lib/ids.ts';
import { defineJob, PermanentJobError } from './job.ts';
import { JobQueue, type PayloadSchemas, type QueueOptions } from './queue.ts';

let env: Awaited<ReturnType<typeof openTestRuntime>>;
let deps: Deps;
const queues: TestQueue[] = [];
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

type Logged = { level: string; obj: object; msg?: string };

function recordingLog(into: Logged[] = []) {
  const at = (level: string) => (obj: object, msg?: string) => void into.push({ level, obj, ...(msg ? { msg } : {}) });
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

type TestJob = ReturnType<typeof testJob>['job'];
/** Its jobs are made up per test, not the app's (JOB_PAYLOADS): names and payloads are checked at run time only. */
type TestQueue = JobQueue<PayloadSchemas>;

function newQueue(jobs: TestJob[], options: Partial<QueueOptions> = {}, log = recordingLog()): TestQueue {
  const queue = new JobQueue<PayloadSchemas>({ pollMs: 50, ...options }, jobs, log);
  queues.push(queue);
  return queue;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A job with a name of its own (the tests share one database) that records every execution.
 * `fail(attempt)` returns the message to fail that attempt with, or null to succeed.
 */
function testJob(
  options: {
    maxAttempts?: number;
    backoffMs?: number;
    delayMs?: number;
    fail?: (attempt: number) => string | null;
  } = {},
) {
  const runs: Array<{ n: number; attempt: number }> = [];
  const job = defineJob({
    name: `test-${uuidv7()}`,
    payload: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
    maxAttempts: options.maxAttempts ?? 3,
    backoffMs: () => options.backoffMs ?? 0,
    async handle(payload, ctx) {
      runs.push({ n: payload.n, attempt: ctx.attempt });
      if (options.delayMs) await sleep(Math.random() * options.delayMs);
      const failure = options.fail?.(ctx.attempt) ?? null;
      if (failure !== null)
        throw failure.startsWith('permanent:') ? new PermanentJobError(failure) : new Error(failure);
    },
  });
  return { job, runs };
}

const rowsOf = (job: TestJob) =>
  deps.db.selectFrom('jobs').selectAll().where('name', '=', job.name).orderBy('created_at').execute();

describe('happy', () => {
  it('runs a job enqueued in a committed transaction once', async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job]);
    expect(await withTransaction(deps.db, (tx) => queue.enqueue(tx, job.name, { n: 1 }))).toBe(true);
    expect(await queue.drain(deps)).toBe(1);
    expect(await queue.drain(deps)).toBe(0);
    expect(runs).toEqual([{ n: 1, attempt: 1 }]);
    expect(await rowsOf(job)).toEqual([
      expect.objectContaining({
        status: 'succeeded',
        attempts: 1,
        locked_by: null,
        locked_until: null,
        last_error: null,
        payload: { n: 1 },
      }),
    ]);
  });

  it('adds nothing for a job enqueued in a transaction that rolls back', async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job]);
    const failing = withTransaction(deps.db, async (tx) => {
      await queue.enqueue(tx, job.name, { n: 1 });
      throw new Error('business write failed');
    });
    await expect(failing).rejects.toThrow('business write failed');
    expect(await rowsOf(job)).toEqual([]);
    expect(await queue.drain(deps)).toBe(0);
    expect(runs).toEqual([]);
  });

  it('deduplicates by job key', async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job]);
    const jobKey = `key-${uuidv7()}`;
    expect(await queue.enqueue(deps.db, job.name, { n: 1 }, { jobKey })).toBe(true);
    expect(await queue.enqueue(deps.db, job.name, { n: 2 }, { jobKey })).toBe(false);
    expect(await queue.enqueue(deps.db, job.name, { n: 3 })).toBe(true);
    expect(await queue.drain(deps)).toBe(2);
    // The finished job still holds its key until it is purged.
    expect(await queue.enqueue(deps.db, job.name, { n: 4 }, { jobKey })).toBe(false);
    expect(runs.map((run) => run.n).sort()).toEqual([1, 3]);
  });

  it('runs each of 50 jobs exactly once with two processes draining at once', async () => {
    const { job, runs } = testJob({ delayMs: 10 });
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
    const [one, two] = [newQueue([job], { concurrency: 4 }), newQueue([job], { concurrency: 4 })];
    await withTransaction(deps.db, async (tx) => {
      for (let n = 0; n < 50; n++) await one.enqueue(tx, job.name, { n });
    });
    const [ranOne, ranTwo] = await Promise.all([one.drain(deps), two.drain({ ...deps, db: otherDb })]);
    expect(ranOne + ranTwo).toBe(50);
    expect(Math.min(ranOne, ranTwo)).toBeGreaterThan(0);
    expect(runs).toHaveLength(50);
    expect(new Set(runs.map((run) => run.n)).size).toBe(50);
    const rows = await rowsOf(job);
    expect(rows.every((row) => row.status === 'succeeded' && row.attempts === 1)).toBe(true);
  });

  it('runs at most `concurrency` jobs at once, and all of them', async () => {
    let running = 0;
    let most = 0;
    const { job, runs } = testJob();
    const slow = defineJob({
      ...job,
      async handle(payload, ctx) {
        running++;
        most = Math.max(most, running);
        await sleep(30);
        running--;
        await job.handle(payload, ctx);
      },
    });
    const queue = newQueue([slow], { pollMs: 20, concurrency: 3 });
    expect(queue.concurrency).toBe(3);
    for (let n = 0; n < 9; n++) await queue.enqueue(deps.db, slow.name, { n });
    queue.start(deps);
    await vi.waitFor(() => expect(runs).toHaveLength(9), { timeout: 5_000, interval: 10 });
    await queue.stop();
    expect(most).toBe(3);
  });

  it('lets the event loop turn while it works through a backlog: a timer set as it starts fires long before the backlog is done', async () => {
    const { job, runs } = testJob();
    const querying = defineJob({
      ...job,
      async handle(payload, ctx) {
        await sql`select 1`.execute(deps.db);
        await job.handle(payload, ctx);
      },
    });
    const queue = newQueue([querying], { concurrency: 4 });
    for (let n = 0; n < 200; n++) await queue.enqueue(deps.db, querying.name, { n });
    let ranWhenTimerFired: number | null = null;
    queue.start(deps);
    // On PGlite a statement is answered without I/O: without a turn of the loop between polls, no
    // timer (nor any request of the server) ran until all 200 jobs were done.
    setTimeout(() => (ranWhenTimerFired = runs.length), 0);
    await vi.waitFor(() => expect(runs).toHaveLength(200), { timeout: 20_000, interval: 10 });
    await queue.stop();
    expect(ranWhenTimerFired).not.toBeNull();
    expect(ranWhenTimerFired!).toBeLessThan(50);
  });

  it('keeps a job across a restart: a fresh queue on the same database runs it', async () => {
    const { job, runs } = testJob();
    const first = newQueue([job]);
    first.start(deps);
    await first.enqueue(deps.db, job.name, { n: 1 }, { runAt: new Date(Date.now() + 300) });
    await first.stop();
    expect(runs).toEqual([]);
    const second = newQueue([job]);
    second.start(deps);
    await vi.waitFor(() => expect(runs).toEqual([{ n: 1, attempt: 1 }]), { timeout: 5_000, interval: 20 });
    await second.stop();
    expect(await rowsOf(job)).toEqual([expect.objectContaining({ status: 'succeeded' })]);
  });

  it('runs a job enqueued while the loop runs well before the next poll, and stops promptly', async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job], { pollMs: 10_000 });
    queue.start(deps);
    await sleep(100); // the loop is now waiting for its next poll
    await queue.enqueue(deps.db, job.name, { n: 1 });
    await vi.waitFor(() => expect(runs).toHaveLength(1), { timeout: 1_000, interval: 10 });
    const started = Date.now();
    await queue.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    await queue.enqueue(deps.db, job.name, { n: 2 });
    await sleep(200);
    expect(runs).toHaveLength(1);
  });

  it('looks again at once when poked during a poll, instead of sleeping a full poll', async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job], { pollMs: 10_000 });
    // The first poll is held open until released: a job enqueued meanwhile is poked about while
    // no loop is waiting, and that poll (already past its claim) does not see it.
    const realTick = (queue as unknown as { tick(): Promise<number> }).tick.bind(queue);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let first = true;
    vi.spyOn(queue as unknown as { tick(): Promise<number> }, 'tick').mockImplementation(async () => {
      if (!first) return realTick();
      first = false;
      await held;
      return 0;
    });
    queue.start(deps);
    await sleep(50);
    await queue.enqueue(deps.db, job.name, { n: 1 });
    await sleep(100); // its poke came while the first poll was still open
    release();
    await vi.waitFor(() => expect(runs).toHaveLength(1), { timeout: 2_000, interval: 10 });
    await queue.stop();
  });

  it('stops within a fraction of the poll interval even right after start', async () => {
    const { job } = testJob();
    const queue = newQueue([job], { pollMs: 10_000 });
    const started = Date.now();
    queue.start(deps);
    await queue.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits for running jobs when stopping', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { job, runs } = testJob();
    const slow: TestJob = {
      ...job,
      async handle(payload, ctx) {
        await gate;
        await job.handle(payload, ctx);
      },
    };
    const queue = newQueue([slow]);
    await queue.enqueue(deps.db, slow.name, { n: 1 });
    queue.start(deps);
    await vi.waitFor(async () => expect((await rowsOf(job))[0]?.status).toBe('running'), {
      timeout: 2_000,
      interval: 10,
    });
    const stopped = queue.stop();
    setTimeout(release, 100);
    await stopped;
    expect(runs).toHaveLength(1);
    expect((await rowsOf(job))[0]?.status).toBe('succeeded');
  });
});

describe('errors', () => {
  it('retries a failing job, then marks it failed after maxAttempts with a redacted last_error', async () => {
    const logged: Logged[] = [];
    const { job, runs } = testJob({
      maxAttempts: 3,
      fail: (attempt) => `card 4111111111111111 declined on attempt ${attempt}`,
    });
    const queue = newQueue([job], {}, recordingLog(logged));
    await queue.enqueue(deps.db, job.name, { n: 1 });
    expect(await queue.drain(deps)).toBe(3);
    expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3]);
    const [row] = await rowsOf(job);
    expect(row).toMatchObject({ status: 'failed', attempts: 3, max_attempts: 3, locked_by: null });
    expect(row!.last_error).toContain('declined on attempt 3');
    expect(row!.last_error).not.toContain('4111111111111111');
    expect(JSON.stringify(logged)).not.toContain('4111111111111111');
    expect(logged.map((entry) => entry.level)).toEqual(['warn', 'warn', 'error']);
    expect(await queue.drain(deps)).toBe(0);
  });

  it('marks a job failed at its first PermanentJobError, attempts left or not', async () => {
    const logged: Logged[] = [];
    const { job, runs } = testJob({ maxAttempts: 8, fail: () => 'permanent: the provider refused the credentials' });
    const queue = newQueue([job], {}, recordingLog(logged));
    await queue.enqueue(deps.db, job.name, { n: 1 });
    expect(await queue.drain(deps)).toBe(1);
    expect(runs).toHaveLength(1);
    expect((await rowsOf(job))[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      max_attempts: 8,
      last_error: 'permanent: the provider refused the credentials',
    });
    expect(logged.map((entry) => [entry.level, entry.msg])).toEqual([['error', 'job failed for good']]);
  });

  it('waits for the backoff before a retry, and clears last_error on success', async () => {
    const { job, runs } = testJob({
      maxAttempts: 3,
      backoffMs: 60_000,
      fail: (attempt) => (attempt === 1 ? 'temporary' : null),
    });
    const queue = newQueue([job]);
    await queue.enqueue(deps.db, job.name, { n: 1 });
    const before = Date.now();
    expect(await queue.drain(deps)).toBe(1);
    let [row] = await rowsOf(job);
    expect(row).toMatchObject({ status: 'queued', attempts: 1, last_error: 'temporary' });
    expect(row!.run_at.getTime()).toBeGreaterThanOrEqual(before + 59_000);
    expect(await queue.drain(deps)).toBe(0);
    // A second ago: the poll's clock is the process's, in milliseconds, which can trail now()'s microseconds.
    await sql`UPDATE jobs SET run_at = now() - interval '1 second' WHERE id = ${row!.id}`.execute(deps.db);
    expect(await queue.drain(deps)).toBe(1);
    [row] = await rowsOf(job);
    expect(row).toMatchObject({ status: 'succeeded', attempts: 2, last_error: null });
    expect(runs.map((run) => run.attempt)).toEqual([1, 2]);
  });

  it('refuses at enqueue a payload that does not match the schema, and an unregistered job', async () => {
    const { job } = testJob();
    const queue = newQueue([job]);
    await expect(queue.enqueue(deps.db, job.name, { n: 'one' })).rejects.toThrow(/does not match its schema/);
    await expect(queue.enqueue(deps.db, job.name, { n: 1, card: '4111111111111111' })).rejects.toThrow(
      /does not match its schema/,
    );
    await expect(queue.enqueue(deps.db, testJob().job.name, { n: 1 })).rejects.toThrow(/is not registered/);
    expect(await rowsOf(job)).toEqual([]);
  });

  it('fails a stored payload that no longer matches the schema without running the handler', async () => {
    const { job, runs } = testJob({ maxAttempts: 1 });
    const queue = newQueue([job]);
    await deps.db
      .insertInto('jobs')
      // A second ago, as above: the poll's clock can trail the database's now().
      .values({
        id: uuidv7(),
        name: job.name,
        payload: JSON.stringify({ m: 1 }),
        max_attempts: 1,
        run_at: sql<Date>`now() - interval '1 second'`,
      })
      .execute();
    expect(await queue.drain(deps)).toBe(1);
    expect(runs).toEqual([]);
    expect((await rowsOf(job))[0]).toMatchObject({
      status: 'failed',
      last_error: 'payload does not match the job schema',
    });
  });
});

describe('one statement per poll', () => {
  /**
   * `deps` whose database counts the statements it runs (a Kysely plugin sees each result once),
   * and fails the `failPoll`th poll before it is sent (a poll is one raw statement: its query node).
   */
  function countingDeps(failPoll?: number): { deps: Deps; count(): number } {
    let ran = 0;
    let polls = 0;
    const db = deps.db.withPlugin({
      transformQuery(args) {
        if (args.node.kind === 'RawNode' && ++polls === failPoll)
          throw new Error('the database went away for one statement');
        return args.node;
      },
      transformResult: async (args) => {
        ran++;
        return args.result;
      },
    });
    return { deps: { ...deps, db }, count: () => ran };
  }

  it("records a job's success in the poll that takes the next job: 3 jobs, 4 statements", async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job], { concurrency: 1 });
    for (const n of [1, 2, 3]) await queue.enqueue(deps.db, job.name, { n });
    const counting = countingDeps();
    expect(await queue.drain(counting.deps)).toBe(3);
    expect(runs.map((r) => r.n).sort()).toEqual([1, 2, 3]);
    // Polls: take 1; record 1, take 2; record 2, take 3; record 3, find none. Before, each poll was
    // two statements (abandoned jobs, claim) and each success one more: 11.
    expect(counting.count()).toBe(4);
    const rows = await rowsOf(job);
    expect(rows.map((row) => [row.status, row.attempts, row.locked_by, row.locked_until])).toEqual([
      ['succeeded', 1, null, null],
      ['succeeded', 1, null, null],
      ['succeeded', 1, null, null],
    ]);
  });

  it('records the successes of a drain cut short by its rounds, once it ends', async () => {
    const { job } = testJob();
    const queue = newQueue([job], { concurrency: 1 });
    await queue.enqueue(deps.db, job.name, { n: 1 });
    await queue.enqueue(deps.db, job.name, { n: 2 });
    expect(await queue.drain(deps, 1)).toBe(1);
    expect((await rowsOf(job)).map((row) => row.status).sort()).toEqual(['queued', 'succeeded']);
  });

  it('keeps a success a failed poll did not write, and writes it with the next poll; the job runs once', async () => {
    const logged: Logged[] = [];
    const { job, runs } = testJob();
    const queue = newQueue([job], { concurrency: 1, pollMs: 20 }, recordingLog(logged));
    await queue.enqueue(deps.db, job.name, { n: 1 });
    await queue.enqueue(deps.db, job.name, { n: 2 });
    // The first poll takes job 1; the second, after job 1's end, fails before it is sent.
    queue.start(countingDeps(2).deps);
    await vi.waitFor(
      async () => expect((await rowsOf(job)).map((row) => row.status)).toEqual(['succeeded', 'succeeded']),
      { timeout: 5_000, interval: 20 },
    );
    await queue.stop();
    expect(runs.map((r) => r.n)).toEqual([1, 2]);
    expect(logged.filter((l) => l.msg === 'job queue poll failed')).toHaveLength(1);
  });

  it('never takes again, in the poll that records it, a job that ran past its lease', async () => {
    const { job, runs } = testJob({ delayMs: 0 });
    const slow: TestJob = {
      ...job,
      async handle(payload, ctx) {
        await sleep(150);
        await job.handle(payload, ctx);
      },
    };
    // A lease of 50 ms: the job is still running, on its own worker, when it ends.
    const queue = newQueue([slow], { concurrency: 1, leaseMs: 50 });
    await queue.enqueue(deps.db, slow.name, { n: 1 });
    // Its second round's poll records it while its lease is over: it must not take it again.
    expect(await queue.drain(deps)).toBe(1);
    expect(runs).toHaveLength(1);
    expect((await rowsOf(job))[0]).toMatchObject({ status: 'succeeded', attempts: 1, locked_by: null });
  });
});

describe('recovery', () => {
  it('takes again a job whose worker died (lease past), but not one whose lease still runs', async () => {
    const { job, runs } = testJob();
    const queue = newQueue([job]);
    await queue.enqueue(deps.db, job.name, { n: 1 });
    await queue.enqueue(deps.db, job.name, { n: 2 });
    const [dead, alive] = await rowsOf(job);
    await sql`UPDATE jobs SET status = 'running', attempts = 1, locked_by = 'dead-worker', locked_until = now() - interval '1 minute' WHERE id = ${dead!.id}`.execute(
      deps.db,
    );
    await sql`UPDATE jobs SET status = 'running', attempts = 1, locked_by = 'live-worker', locked_until = now() + interval '1 hour' WHERE id = ${alive!.id}`.execute(
      deps.db,
    );
    expect(await queue.drain(deps)).toBe(1);
    expect(runs).toEqual([{ n: (dead!.payload as { n: number }).n, attempt: 2 }]);
    const rows = await rowsOf(job);
    expect(rows.find((row) => row.id === dead!.id)).toMatchObject({
      status: 'succeeded',
      attempts: 2,
      locked_by: null,
    });
    expect(rows.find((row) => row.id === alive!.id)).toMatchObject({ status: 'running', locked_by: 'live-worker' });
  });

  it('fails a job whose worker died on its last allowed attempt instead of retrying it forever', async () => {
    const { job, runs } = testJob({ maxAttempts: 2 });
    const queue = newQueue([job]);
    await queue.enqueue(deps.db, job.name, { n: 1 });
    const [row] = await rowsOf(job);
    await sql`UPDATE jobs SET status = 'running', attempts = 2, locked_by = 'dead-worker', locked_until = now() - interval '1 minute' WHERE id = ${row!.id}`.execute(
      deps.db,
    );
    expect(await queue.drain(deps)).toBe(0);
    expect(runs).toEqual([]);
    expect((await rowsOf(job))[0]).toMatchObject({
      status: 'failed',
      last_error: 'the worker stopped during the last attempt',
      locked_by: null,
    });
  });
});
