import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePauses, summarize } from '../../bench/gc-summary.ts';

/** The GC pause log of bench/gc-pauses.mjs and its summary (bench/gc-summary.ts). */
describe('bench/gc-summary.ts', () => {
  it('summarizes each kind: count, sum, mean, median, p90, longest, pauses over 10 ms', () => {
    const log = ['1000 minor 2', '1100 minor 12.5', '1200 major 30', '1300 minor 4', '1400 minor 11', ''].join('\n');
    expect(summarize(parsePauses(log))).toEqual([
      { kind: 'minor', count: 4, sumMs: 29.5, meanMs: 7.375, medianMs: 4, p90Ms: 12.5, maxMs: 12.5, over10Ms: 2 },
      { kind: 'major', count: 1, sumMs: 30, meanMs: 30, medianMs: 30, p90Ms: 30, maxMs: 30, over10Ms: 1 },
    ]);
  });

  it('keeps only the pauses within the last milliseconds asked, counted back from the last pause', () => {
    const pauses = parsePauses('1000 minor 50\n5000 minor 1\n9000 minor 3\n10000 incremental 2\n');
    expect(summarize(pauses, 5000).map((s) => [s.kind, s.count, s.maxMs])).toEqual([
      ['minor', 2, 3],
      ['incremental', 1, 2],
    ]);
    expect(summarize([], 1000)).toEqual([]);
  });

  it('names a line that is not a pause', () => {
    expect(() => parsePauses('1000 minor 2\nminor 3\n')).toThrow(
      'line 2 is not "<epoch ms> <kind> <pause ms>": minor 3',
    );
  });

  it('the preload logs the pauses of a real process, which the summary reads', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gc-pauses-'));
    try {
      const preload = path.resolve('bench/gc-pauses.mjs');
      // Garbage enough for several scavenges, then a full collection, in a process of its own.
      const script =
        'let keep = []; for (let i = 0; i < 2e6; i++) { keep.push({ i }); if (keep.length > 1000) keep = []; } globalThis.gc(); setTimeout(() => {}, 50);';
      execFileSync(process.execPath, ['--expose-gc', '--import', preload, '-e', script], {
        env: { ...process.env, BENCH_GC_LOG_DIR: dir },
        stdio: 'pipe',
      });
      const [file] = fs.readdirSync(dir);
      expect(file).toMatch(/^gc-\d+\.log$/);
      const kinds = summarize(parsePauses(fs.readFileSync(path.join(dir, file!), 'utf8'))).map((s) => s.kind);
      expect(kinds).toContain('minor');
      expect(kinds).toContain('major');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
