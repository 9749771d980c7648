import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { gcSecondsFrom, groupedFrom, npmStartNodeArgs, settlementDelaySeconds } from '../../bench/server.ts';
import { loadConfig } from '../../src/config.ts';

/**
 * How the benchmark starts a checkout's server (with its `npm start` node flags) and reads the
 * server's garbage-collection pauses off `GET /metrics` (bench/server.ts).
 */
describe('bench/server.ts', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  const checkout = (start: string | undefined) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-start-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ scripts: start === undefined ? {} : { start } }));
    return dir;
  };

  it("takes the node flags of a checkout's npm start, and none from a start script of another form", () => {
    expect(npmStartNodeArgs(checkout('node --max-semi-space-size=64 bin/svc.mjs serve'))).toEqual([
      '--max-semi-space-size=64',
    ]);
    expect(npmStartNodeArgs(checkout('node  --a=1 --b   bin/svc.mjs serve '))).toEqual(['--a=1', '--b']);
    expect(npmStartNodeArgs(checkout('node bin/svc.mjs serve'))).toEqual([]);
    expect(npmStartNodeArgs(checkout('tsx src/main.ts'))).toEqual([]);
    expect(npmStartNodeArgs(checkout('node --x bin/svc.mjs serve && rm -rf data'))).toEqual([]);
    expect(npmStartNodeArgs(checkout(undefined))).toEqual([]);
  });

  it("settles its servers' captures a week later (the most the server allows) unless told otherwise, so no row runs the settlements of the rows before it", () => {
    const delay = settlementDelaySeconds({});
    expect(loadConfig({ SETTLEMENT_DELAY_SECONDS: delay }).settlementDelaySeconds).toBe(7 * 24 * 3600);
    expect(settlementDelaySeconds({ SETTLEMENT_DELAY_SECONDS: '5' })).toBe('5');
  });

  it("sums the GC histogram's kinds as prom-client writes them: 0 before any pause, null without the histogram", async () => {
    const registry = new Registry();
    const other = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP',
      labelNames: ['route'],
      registers: [registry],
    });
    other.observe({ route: '/x' }, 5);
    expect(gcSecondsFrom(await registry.metrics())).toBeNull();
    const gc = new Histogram({
      name: 'nodejs_gc_duration_seconds',
      help: 'GC',
      labelNames: ['kind'],
      buckets: [0.001, 0.01],
      registers: [registry],
    });
    expect(gcSecondsFrom(await registry.metrics())).toBe(0);
    gc.observe({ kind: 'minor' }, 0.002);
    gc.observe({ kind: 'minor' }, 0.003);
    gc.observe({ kind: 'major' }, 0.04);
    expect(gcSecondsFrom(await registry.metrics())).toBeCloseTo(0.045, 9);
  });

  it('reads the group-commit counters (statements, members) when the server has them, null otherwise', async () => {
    const registry = new Registry();
    expect(groupedFrom(await registry.metrics())).toBeNull();
    const statements = new Counter({
      name: 'svc_db_group_commit_statements_total',
      help: 'statements',
      registers: [registry],
    });
    expect(groupedFrom(await registry.metrics())).toBeNull();
    const members = new Counter({ name: 'svc_db_group_commit_members_total', help: 'members', registers: [registry] });
    expect(groupedFrom(await registry.metrics())).toEqual({ statements: 0, members: 0 });
    statements.inc(3);
    members.inc(17);
    expect(groupedFrom(await registry.metrics())).toEqual({ statements: 3, members: 17 });
  });
});
