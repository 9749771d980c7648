import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, SVC, type RunningServer } from '../helpers/spawn-server.ts';

/**
 * docs/vault-forward.md "Try it offline": its shell block, run as written against a fresh sandbox
 * server started with no setting but its data directory and port (issue 51, defect 9). The only
 * changes: the server's address for http://127.0.0.1:8080 (the echo target too: the server's own
 * listening address), and `npx svc` run from this checkout.
 */

const run = promisify(execFile);
const doc = fs.readFileSync(path.join(ROOT, 'docs', 'vault-forward.md'), 'utf8');
const section = doc.slice(doc.indexOf('## Try it offline'), doc.indexOf('\n## ', doc.indexOf('## Try it offline') + 1));
const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';

let dataDir: string;
let server: RunningServer;
beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-vault-forward-example-'));
  // A loaded machine (several test files at once) may take a while to migrate a fresh PGlite.
  server = await startServer({ DATA_DIR: dataDir }, 240_000);
}, 250_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('happy', () => {
  it('runs the offline vault forwarding example: the echo shows the number put in, masked on the way back', async () => {
    expect(block).toContain('x-vault-forward-url: http://127.0.0.1:8080/sandbox/echo');
    const script = block.replaceAll('http://127.0.0.1:8080', server.baseUrl).replaceAll('npx svc', `node ${SVC}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir },
      timeout: 60_000,
    });
    const answer = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(answer).toMatchObject({
      method: 'POST',
      path: '/sandbox/echo',
      headers: { 'x-hotel-key': 'demo' },
      body: { card: { number: '411111******1111', expiry: '07/30' } },
    });
    expect(stdout).not.toContain('4111111111111111');
    expect(stdout).not.toContain('{{');
  }, 90_000);
});
