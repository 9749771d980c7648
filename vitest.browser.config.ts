import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the hosted payment page in a real browser (Debian's chromium driven by
 * playwright-core) against a real listening server. Not part of `npm test` (vitest.config.ts
 * excludes test/browser/). Screenshots go to test/browser/screenshots/ (ignored by git).
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.browser.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
