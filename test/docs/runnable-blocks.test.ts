import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pageScript, runnableBlocks, serverEnvironment, shows } from './runnable-blocks.ts';

const page = [
  '# A page',
  '<!-- run: server -->',
  '```sh',
  'WEBHOOK_ALLOW_PRIVATE_URLS=true npm start',
  '```',
  'Not run:',
  '```sh',
  'rm -rf /',
  '```',
  '<!-- run -->',
  '```sh',
  'GREETING=hello',
  'echo "$GREETING, world"   # a comment',
  '# → hello, …world',
  '```',
  '<!-- run -->',
  '```bash',
  'echo "$GREETING again"',
  '```',
].join('\n');

/** Runs the script of `blocks` with bash; its exit code and each block's output. */
function runScript(markdown: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-blocks-'));
  try {
    const blocks = runnableBlocks(markdown);
    writeFileSync(path.join(dir, 'page.sh'), pageScript(blocks, dir));
    const result = spawnSync('bash', [path.join(dir, 'page.sh')], { encoding: 'utf8' });
    const outputs = blocks.map((_, n) => {
      try {
        return readFileSync(path.join(dir, `${n}.out`), 'utf8');
      } catch {
        return null;
      }
    });
    return { code: result.status, outputs, current: readFileSync(path.join(dir, 'current'), 'utf8').trim() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('happy', () => {
  it('finds the marked blocks only, with their kind, line and # → pieces', () => {
    const blocks = runnableBlocks(page);
    expect(blocks.map((b) => [b.kind, b.line])).toEqual([
      ['server', 4],
      ['run', 12],
      ['run', 18],
    ]);
    expect(blocks[1]!.expectations).toEqual([['hello,', 'world']]);
    expect(serverEnvironment(blocks[0]!)).toEqual({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  });

  it('runs the blocks in one shell, in order, each output apart', () => {
    const result = runScript(page);
    expect(result).toMatchObject({ code: 0, current: 'done' });
    expect(result.outputs.slice(1)).toEqual(['hello, world\n', 'hello again\n']);
  });

  it('matches # → pieces in order, spaces collapsed', () => {
    expect(shows('{"a": 1,\n  "status":   "ok"}', ['"a": 1,', '"status": "ok"'])).toBe(true);
    expect(shows('{"status":"ok","a":1}', ['"a":1', '"status":"ok"'])).toBe(false);
  });
});

describe('errors', () => {
  it('stops at a block whose command fails, or that uses a variable never set', () => {
    const failing = page.replace('echo "$GREETING again"', 'echo "$WEBHOOK_SECRET"');
    expect(runScript(failing)).toMatchObject({ code: 1, current: '2' });
    expect(runScript(page.replace('GREETING=hello', 'false'))).toMatchObject({ code: 1, current: '1' });
  });

  it('refuses a marker without a shell fence, and a server block with something other than VAR=value', () => {
    expect(() => runnableBlocks('<!-- run -->\n```js\nx\n```')).toThrow(/not followed by a ```sh fence/);
    expect(() => serverEnvironment(runnableBlocks('<!-- run: server -->\n```sh\ncd x && npm start\n```')[0]!)).toThrow(
      /not VAR=value/,
    );
  });
});
