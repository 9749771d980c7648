import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../../test/helpers/build-test-app.ts';
import { genericPlan } from '../../../test/helpers/generic-plan.ts';
import type { Runtime } from '../../deps.ts';
import { pollJobsQuery } from './jobs.repo.ts';

/**
 * Every poll of every worker (one statement: src/modules/jobs/jobs.repo.ts, `pollJobsQuery`) checks
 * for jobs whose worker died on their last attempt. That check reads the running jobs
 * (`jobs_running_idx`, a few rows per worker), not the queued ones as well: with 20,000 jobs queued
 * (settlements due later) it took 4.5 ms per poll (decision 0109).
 * The finished jobs it records are found by their key, the due ones through
 * `jobs_due_idx`: no part reads the whole table. With and without statistics, as a prepared
 * statement's generic plan.
 */

let runtime: Runtime;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ runtime, dispose } = await openTestRuntime());
  await sql`alter table jobs set (autovacuum_enabled = false)`.execute(runtime.deps.db);
  // Finished and queued jobs by the thousand, two running: no worker knows the name, none runs.
  await sql`INSERT INTO jobs (id, name, payload, status, run_at, attempts, max_attempts, locked_by, locked_until)
    SELECT gen_random_uuid(), 'plan-test', '{}', s.status, now() + (g || ' ms')::interval, 1, 10,
           case when s.status = 'running' then 'w' end, case when s.status = 'running' then now() + interval '5 minutes' end
    FROM generate_series(1, 4000) g
    CROSS JOIN LATERAL (SELECT case when g <= 2 then 'running' when g % 2 = 0 then 'succeeded' else 'queued' end AS status) s`.execute(
    runtime.deps.db,
  );
});
afterAll(async () => dispose?.());

describe('happy', () => {
  it('reads the running jobs through their own index, without statistics and with them', async () => {
    const poll = {
      workerId: 'w',
      finished: ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c'],
      batch: 4,
      leaseMs: 60_000,
      names: ['plan-test'],
    };
    const query = pollJobsQuery(runtime.deps.db, poll, new Date()).compile(runtime.deps.db);
    const cold = await genericPlan(runtime.deps.db, query);
    expect(cold).toContain('jobs_running_idx');
    expect(cold).toContain('jobs_pkey');
    expect(cold).toContain('jobs_due_idx');
    expect(cold).not.toContain('Seq Scan');
    await sql`analyze jobs`.execute(runtime.deps.db);
    const analyzed = await genericPlan(runtime.deps.db, query);
    expect(analyzed).toContain('jobs_running_idx');
    expect(analyzed).toContain('jobs_pkey');
    expect(analyzed).not.toContain('Seq Scan');
  });

  it('claims the network-bound jobs (`also`, decision 0153) through the due jobs index too', async () => {
    const poll = {
      workerId: 'w',
      finished: ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'],
      batch: 4,
      leaseMs: 60_000,
      names: ['plan-test'],
      also: { names: ['plan-test-network'], batch: 64 },
    };
    const query = pollJobsQuery(runtime.deps.db, poll, new Date()).compile(runtime.deps.db);
    const plan = await genericPlan(runtime.deps.db, query);
    expect(plan.match(/jobs_due_idx/g)?.length).toBe(2);
    expect(plan).toContain('jobs_running_idx');
    expect(plan).not.toContain('Seq Scan');
  });
});
