import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './spawn-server.ts';

/**
 * `npm run test:browser` global setup: builds the dashboard console (dist/console/) when it is
 * missing or older than console/, so the server the tests start serves the current console.
 * CI builds it from scratch before (`npm run build:console` in .ci/run).
 */
export default function setup(): void {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'build.mjs'), '--console', '--if-stale'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`building the console failed (exit ${result.status ?? result.signal})`);
}
