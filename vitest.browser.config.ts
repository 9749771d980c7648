import { defineConfig } from 'vitest/config';

/**
 * `npm run test:browser`: the hosted payment page, the API reference and the dashboard console in a real browser (Debian's chromium driven by
 * playwright-core) against a real listening server. Not part of `npm test` (vitest.config.ts
 * excludes test/browser/). Screenshots go to test/browser/screenshots/ (ignored by git).
 */
export default defineConfig({
  test: {
    // The dashboard console is built first when missing or stale (test/helpers/browser-setup.ts).
    globalSetup: ['test/helpers/browser-setup.ts'],
    include: ['test/browser/**/*.browser.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
