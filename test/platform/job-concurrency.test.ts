import { describe, expect, it } from 'vitest';
import { openTestRuntime } from '../helpers/build-test-app.ts';

// JOB_CONCURRENCY reaches the runtime's job queue (src/jobs/queue.test.ts: the queue runs at most that many at once).
describe('JOB_CONCURRENCY', () => {
  it.each([
    [{ JOB_CONCURRENCY: '7' }, 7],
    [{}, 4],
  ])('%j gives the queue %i jobs at once', async (env, expected) => {
    const opened = await openTestRuntime(env);
    try {
      expect(opened.runtime.deps.queue.concurrency).toBe(expected);
    } finally {
      await opened.dispose();
    }
  });
});
