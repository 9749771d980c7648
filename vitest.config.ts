import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Browser tests need chromium and a listening server: `npm run test:browser` (vitest.browser.config.ts);
    // the reliability suite has its own config and command (npm run test:reliability).
    exclude: [...configDefaults.exclude, 'test/browser/**', 'test/reliability/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite is WebAssembly: starting one per file takes about a second, more under load.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default (CPUs - 1) runs one file at a time on a 2-CPU machine, leaving a core idle
    // while a file waits on its database: two at a time took the suite on the 2-CPU development
    // machine from 548 to 427 s on PGlite and from 422 to 331 s on PostgreSQL.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
  },
});
