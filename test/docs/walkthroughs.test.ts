import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, type RunningServer } from '../helpers/spawn-server.ts';
import { pageScript, runnableBlocks, serverEnvironment, shows, type Block } from './runnable-blocks.ts';

/**
 * The README's walkthrough and the pages listed here, run as a reader runs them: their runnable
 * shell blocks (test/docs/runnable-blocks.ts) in order, with bash, from the project's root, against
 * a fresh sandbox server started with the README's own start command's variables. The documented
 * address http://127.0.0.1:8080 is replaced by the server's; `svc` finds the server and its key
 * through the same DATA_DIR and PORT.
 */
const PAGES = ['README.md', 'docs/getting-started.md', 'docs/sandbox.md', 'docs/digital-wallets.md'];
const DOCUMENTED_URL = 'http://127.0.0.1:8080';

const blocksOf = (page: string) => runnableBlocks(readFileSync(path.join(ROOT, page), 'utf8'));

let server: RunningServer;
let dataDir: string;
let port: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-docs-'));
  const [start] = blocksOf('README.md').filter((block) => block.kind === 'server');
  expect(start, 'the README has a <!-- run: server --> block').toBeDefined();
  server = await startServer({ ...serverEnvironment(start!), DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  port = new URL(server.baseUrl).port;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the page's script; the exit code and, when it failed, the block it stopped in. */
async function run(page: string, blocks: Block[], outDir: string): Promise<{ code: number | null; stderr: string }> {
  const file = path.join(outDir, 'page.sh');
  writeFileSync(file, pageScript(blocks, outDir));
  const child = spawn('bash', [file], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATA_DIR: dataDir, PORT: port },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr: `${page}: ${stderr}` };
}

function failure(page: string, blocks: Block[], outDir: string, stderr: string): string {
  const current = readFileSync(path.join(outDir, 'current'), 'utf8').trim();
  const block = blocks[Number(current)];
  const out = path.join(outDir, `${current}.out`);
  const output = existsSync(out) ? readFileSync(out, 'utf8') : '';
  return `${page}, block at line ${block?.line ?? '?'} failed:\n${block?.code ?? ''}\n--- its output:\n${output}\n--- stderr:\n${stderr}`;
}

describe('happy', () => {
  for (const page of PAGES) {
    it(`${page}: every runnable block exits 0 and shows what its # → lines say`, async () => {
      const blocks = blocksOf(page).map((block) => ({
        ...block,
        code: block.code.replaceAll(DOCUMENTED_URL, server.baseUrl),
      }));
      expect(blocks.filter((block) => block.kind !== 'server').length, `${page} has runnable blocks`).toBeGreaterThan(
        0,
      );
      const outDir = mkdtempSync(path.join(os.tmpdir(), 'svc-docs-run-'));
      try {
        const { code, stderr } = await run(page, blocks, outDir);
        expect(code, failure(page, blocks, outDir, stderr)).toBe(0);
        blocks.forEach((block, n) => {
          if (block.kind === 'server') return;
          const output = readFileSync(path.join(outDir, `${n}.out`), 'utf8');
          for (const pieces of block.expectations)
            expect(
              shows(output, pieces),
              `${page} line ${block.line}: # → ${pieces.join('…')}\n--- output:\n${output}`,
            ).toBe(true);
        });
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    }, 120_000);
  }
});
