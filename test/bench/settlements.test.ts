import { Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { settledFrom, settlementsLeftFrom } from '../../bench/settlements.ts';

/** What `npm run bench:settlements` reads off the server's `GET /metrics` (bench/settlements.ts). */
describe('bench/settlements.ts', () => {
  it('reads the settlements this server ran and those left in the database, other jobs and outcomes apart', async () => {
    const registry = new Registry();
    expect(settledFrom(await registry.metrics())).toBe(0);
    expect(settlementsLeftFrom(await registry.metrics())).toBe(0);
    const runs = new Counter({
      name: 'svc_jobs_total',
      help: 'runs',
      labelNames: ['job', 'outcome'],
      registers: [registry],
    });
    const depth = new Gauge({
      name: 'svc_job_queue_depth',
      help: 'depth',
      labelNames: ['job', 'state'],
      registers: [registry],
    });
    runs.inc({ job: 'settle-transaction', outcome: 'succeeded' }, 41);
    runs.inc({ job: 'settle-transaction', outcome: 'retrying' }, 3);
    runs.inc({ job: 'deliver-webhook', outcome: 'succeeded' }, 7);
    depth.set({ job: 'settle-transaction', state: 'due' }, 100);
    depth.set({ job: 'settle-transaction', state: 'running' }, 4);
    depth.set({ job: 'settle-transaction', state: 'scheduled' }, 10);
    depth.set({ job: 'deliver-webhook', state: 'due' }, 9);
    const metrics = await registry.metrics();
    expect(settledFrom(metrics)).toBe(41);
    expect(settlementsLeftFrom(metrics)).toBe(114);
  });
});
