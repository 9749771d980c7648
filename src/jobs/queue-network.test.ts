import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import type { Deps } from '../context.ts';
import { uuidv7 } from '../lib/ids.ts';
import { defineJob } from './job.ts';
import { JobQueue, type PayloadSchemas, type QueueOptions } from './queue.ts';

/**
 * Network-bound jobs (`Job.network`, decision 0153) run in slots of their own: a worker whose
 * common slots are all taken still runs them, one whose network slots are all taken still runs the
 * others, and each kind stays within its own limit.
 */
let env: Awaited<ReturnType<typeof openTestRuntime>>;
let deps: Deps;
const queues: Array<JobQueue<PayloadSchemas>> = [];

beforeAll(async () => {
  env = await openTestRuntime();
  deps = env.runtime.deps;
});
afterAll(async () => {
  await Promise.all(queues.map((queue) => queue.stop()));
  await env.dispose();
});

const silent = { info() {}, warn() {}, error() {} };

/**
 * A job of its own name whose runs wait until `release()` (or `delayMs`), counting how many run at
 * once; `fail(attempt)` fails that attempt.
 */
function gatedJob(options: { network?: boolean; delayMs?: number; fail?: (attempt: number) => boolean } = {}) {
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => (open = resolve));
  const state = { runs: [] as Array<{ n: number; attempt: number }>, running: 0, most: 0, done: 0 };
  const job = defineJob({
    name: `net-${uuidv7()}`,
    payload: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
    maxAttempts: 3,
    backoffMs: () => 0,
    ...(options.network ? { network: true as const } : {}),
    async handle(payload, ctx) {
      state.runs.push({ n: payload.n, attempt: ctx.attempt });
      state.running++;
      state.most = Math.max(state.most, state.running);
      try {
        await (options.delayMs === undefined ? gate : new Promise((r) => setTimeout(r, options.delayMs)));
        if (options.fail?.(ctx.attempt)) throw new Error('the receiver did not answer');
      } finally {
        state.running--;
        state.done++;
      }
    },
  });
  const release = () => {
    open();
    gate = Promise.resolve();
  };
  return { job, state, release };
}

function newQueue(jobs: Array<ReturnType<typeof gatedJob>['job']>, options: Partial<QueueOptions>) {
  const queue = new JobQueue<PayloadSchemas>({ pollMs: 50, ...options }, jobs, silent);
  queues.push(queue);
  return queue;
}

const statuses = async (name: string) =>
  (await deps.db.selectFrom('jobs').select('status').where('name', '=', name).execute()).map((r) => r.status);

describe('happy', () => {
  it('runs a network-bound job while every common slot is taken by a job that does not end', async () => {
    const blocking = gatedJob();
    const network = gatedJob({ network: true, delayMs: 1 });
    const queue = newQueue([blocking.job, network.job], { concurrency: 2, networkConcurrency: 2 });
    for (let n = 0; n < 3; n++) await queue.enqueue(deps.db, blocking.job.name, { n });
    queue.start(deps);
    await vi.waitFor(() => expect(blocking.state.running).toBe(2), { timeout: 5_000, interval: 10 });
    for (let n = 0; n < 5; n++) await queue.enqueue(deps.db, network.job.name, { n });
    await vi.waitFor(() => expect(network.state.done).toBe(5), { timeout: 5_000, interval: 10 });
    expect(blocking.state.runs).toHaveLength(2);
    blocking.release();
    await vi.waitFor(() => expect(blocking.state.done).toBe(3), { timeout: 5_000, interval: 10 });
    await queue.stop();
    expect(await statuses(network.job.name)).toEqual(Array(5).fill('succeeded'));
    expect(await statuses(blocking.job.name)).toEqual(Array(3).fill('succeeded'));
  });

  it('runs the other jobs while every network slot waits on a receiver that does not answer', async () => {
    const receiver = gatedJob({ network: true });
    const settling = gatedJob({ delayMs: 1 });
    const queue = newQueue([receiver.job, settling.job], { concurrency: 1, networkConcurrency: 3 });
    for (let n = 0; n < 10; n++) await queue.enqueue(deps.db, receiver.job.name, { n });
    queue.start(deps);
    await vi.waitFor(() => expect(receiver.state.running).toBe(3), { timeout: 5_000, interval: 10 });
    for (let n = 0; n < 5; n++) await queue.enqueue(deps.db, settling.job.name, { n });
    await vi.waitFor(() => expect(settling.state.done).toBe(5), { timeout: 5_000, interval: 10 });
    expect(settling.state.most).toBe(1);
    expect(receiver.state.runs).toHaveLength(3);
    receiver.release();
    await vi.waitFor(() => expect(receiver.state.done).toBe(10), { timeout: 5_000, interval: 10 });
    expect(receiver.state.most).toBe(3);
    await queue.stop();
    expect(await statuses(receiver.job.name)).toEqual(Array(10).fill('succeeded'));
  });

  it('retries a failed network-bound job, and two workers side by side run each one once within their limits', async () => {
    const receiver = gatedJob({ network: true, delayMs: 20, fail: (attempt) => attempt === 1 });
    const one = newQueue([receiver.job], { concurrency: 1, networkConcurrency: 4 });
    const two = newQueue([receiver.job], { concurrency: 1, networkConcurrency: 4 });
    for (let n = 0; n < 30; n++) await one.enqueue(deps.db, receiver.job.name, { n });
    one.start(deps);
    two.start(deps);
    await vi.waitFor(async () => expect(await statuses(receiver.job.name)).toEqual(Array(30).fill('succeeded')), {
      timeout: 10_000,
      interval: 50,
    });
    // Each job: a failed first attempt, then a second that succeeded; never more than 4 a worker.
    const attempts = new Map<number, number[]>();
    for (const run of receiver.state.runs) attempts.set(run.n, [...(attempts.get(run.n) ?? []), run.attempt]);
    expect([...attempts.values()].every((a) => a.join() === '1,2')).toBe(true);
    expect(attempts.size).toBe(30);
    expect(receiver.state.most).toBeLessThanOrEqual(8);
  });
});
