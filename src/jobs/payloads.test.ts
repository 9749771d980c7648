import { describe, expect, it } from 'vitest';
import { JOBS } from './index.ts';
import { JOB_PAYLOADS } from './payloads.ts';

describe('happy', () => {
  it('registers one job per name in JOB_PAYLOADS, each validating with that schema', () => {
    expect(JOBS.map((job) => job.name).sort()).toEqual(Object.keys(JOB_PAYLOADS).sort());
    for (const job of JOBS) expect(job.payload).toBe(JOB_PAYLOADS[job.name as keyof typeof JOB_PAYLOADS]);
  });
});
