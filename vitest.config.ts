import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongFilesFirst } from './test/helpers/sequencer.ts';

/**
 * Files whose module state must be their own: a vi.mock of a module the app imports (it only
 * takes effect in a fresh module graph), the per-process naming budget of prepared statements
 * (src/db/prepared-statements.ts) and the id generator's clock (src/lib/ids.ts), which earlier
 * files in a shared process would have spent or moved.
 */
const ISOLATED = [
  'src/modules/transactions/routes/one-statement-capture.test.ts',
  'src/db/prepared-statements.test.ts',
  'src/lib/ids.test.ts',
];
/**
 * Files that start `svc` processes on their own embedded database (a DATA_DIR, no DATABASE_URL),
 * whatever TEST_DATABASE_URL says, and build no app in this process: the PostgreSQL run of
 * `npm test` would repeat them unchanged (about 200 s of the suite's test time; a slow CI host ran
 * the PostgreSQL run in 14 minutes), so only the embedded run has them. The spawned server on
 * PostgreSQL is tested by test/e2e/scale-out.test.ts and test/e2e/operate.test.ts, which use
 * TEST_DATABASE_URL. test/platform/embedded-only.test.ts checks this list against the files.
 */
export const EMBEDDED_ONLY = [
  'test/e2e/cli.test.ts',
  'test/e2e/cli-database.test.ts',
  'test/e2e/master-key-providers.test.ts',
  'test/e2e/rotate-vault.test.ts',
  'test/e2e/server.test.ts',
  'test/e2e/vault-forward-example.test.ts',
  'test/docs/walkthroughs.test.ts',
  'test/ops/compiled-start.test.ts',
];
// Browser tests need chromium and a listening server: `npm run test:browser` (vitest.browser.config.ts);
// the reliability suite has its own config and command (npm run test:reliability).
const EXCLUDE = [
  ...configDefaults.exclude,
  'test/browser/**',
  'test/reliability/**',
  ...(process.env.TEST_DATABASE_URL ? EMBEDDED_ONLY : []),
];

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    // PGlite is WebAssembly: starting one per file takes about a second, more under load.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // vitest's default (CPUs - 1) runs one file at a time on a 2-CPU machine, leaving a core idle
    // while a file waits on its database: two at a time took the suite on the 2-CPU development
    // machine from 548 to 427 s on PGlite and from 422 to 331 s on PostgreSQL.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Each worker process runs file after file with the modules it already loaded: a fresh process
    // per file cost about a second of imports, and made every file compile the app's route schemas
    // again (about 2 s; test/helpers/compile-cache.ts). Every file still gets its own database and
    // app (build-test-app.ts); vitest restores mocks between files. The few files that need a
    // fresh module graph run as the `isolated` project.
    isolate: false,
    sequence: { sequencer: LongFilesFirst },
    // The projects inherit everything above (extends); the root's include would be added to theirs.
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...ISOLATED],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED, exclude: EXCLUDE, isolate: true } },
    ],
  },
});
