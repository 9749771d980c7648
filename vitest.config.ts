import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite is WebAssembly: starting one per file takes about a second, more under load.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
