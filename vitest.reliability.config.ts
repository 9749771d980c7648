import { defineConfig } from 'vitest/config';

/**
 * The reliability and security suite (`npm run test:reliability`): crash safety, hostile input,
 * leaks, SSRF, slow clients and graceful shutdown. Kept out of `npm test` because it starts real
 * server processes and measures latency; RELIABILITY_PROFILE=ci (default) is the bounded form CI
 * runs, RELIABILITY_PROFILE=release the longer one (see README, "Reliability").
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.reliability.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // One file at a time: the latency and crash files measure a real server, and a second file
    // competing for the same 2 cores would turn its figures into noise.
    maxWorkers: 1,
    minWorkers: 1,
    fileParallelism: false,
  },
});
