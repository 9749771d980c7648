/**
 * The decision records (docs/decisions/, STYLE E7): one file per decision, `NNNN-title.md`, numbered
 * without gaps, each with its title, status and sections, each listed in the index, a superseded
 * record naming one that exists, and every `(decision NNNN)` cited in the tree naming a record.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DIR = join(ROOT, 'docs', 'decisions');
const NAME = /^(\d{4})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
const LINK = /\]\((\d{4}-[a-z0-9-]+\.md)\)/g;

const files = readdirSync(DIR).filter((f) => f !== 'README.md');
const records = files
  .filter((f) => NAME.test(f))
  .map((file) => ({ file, number: file.slice(0, 4), text: readFileSync(join(DIR, file), 'utf8') }));
const existing = new Set(files);
const numbers = new Set(records.map((r) => r.number));

/** Every file under `dir` with one of `extensions`, node_modules and dot folders left out. */
function walk(dir: string, extensions: string[]): string[] {
  return readdirSync(dir).flatMap((entry) => {
    if (entry === 'node_modules' || entry.startsWith('.')) return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return walk(path, extensions);
    return extensions.some((e) => entry.endsWith(e)) ? [path] : [];
  });
}

/** The record numbers a text cites: `(decision 0012)`, `decisions 0053, 0054 and 0063`. */
export function citedNumbers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bdecisions? (\d{4}(?:(?:, | and )\d{4})*)/g))
    found.push(...(m[1] ?? '').split(/, | and /));
  return found;
}

describe('decision records', () => {
  it('are named NNNN-title.md, one file per number, numbered 0001 upward without a gap', () => {
    expect(files.filter((f) => !NAME.test(f))).toEqual([]);
    expect(records.length).toBeGreaterThan(0);
    const sorted = records.map((r) => r.number).sort();
    expect(sorted).toEqual(sorted.map((_, i) => String(i + 1).padStart(4, '0')));
  });

  it('each has a title with its number, a status, and context, decision and consequences', () => {
    for (const { file, number, text } of records) {
      const lines = text.split('\n');
      expect(lines[0], file).toMatch(new RegExp(`^# ${number}\\. \\S`));
      expect(text, file).toMatch(/^- Status: (Accepted|Superseded by \[\d{4}\]\(\d{4}-[a-z0-9-]+\.md\))$/m);
      for (const section of ['Context', 'Decision', 'Consequences'])
        expect(text, `${file}: ${section}`).toMatch(new RegExp(`^## ${section}$`, 'm'));
    }
  });

  it('each is listed in the index, and the index lists no other file', () => {
    const index = readFileSync(join(DIR, 'README.md'), 'utf8');
    const listed = new Set([...index.matchAll(LINK)].map((m) => m[1] ?? ''));
    for (const { file } of records) expect(listed.has(file), file).toBe(true);
    for (const file of listed) expect(existing.has(file), file).toBe(true);
  });

  it('a superseded record names a record that exists and that says it supersedes it', () => {
    for (const { file, text } of records) {
      const by = /^- Status: Superseded by \[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\)$/m.exec(text);
      if (!by) continue;
      const [, number = '', successorFile = ''] = by;
      expect(successorFile.slice(0, 4), file).toBe(number);
      expect(existing.has(successorFile), `${file} -> ${successorFile}`).toBe(true);
      const successor = readFileSync(join(DIR, successorFile), 'utf8');
      expect(successor, `${successorFile} supersedes ${file}`).toMatch(
        new RegExp(`^- Supersedes: .*\\]\\(${file.replace('.', '\\.')}\\)`, 'm'),
      );
    }
  });

  it('links between records name files that exist', () => {
    for (const { file, text } of records)
      for (const [, target = ''] of text.matchAll(LINK))
        expect(existing.has(target), `${file} -> ${target}`).toBe(true);
  });

  it('every decision cited in the README, src, test, bench, bin and docs exists, and nothing cites docs/decisions.md', () => {
    const sources = [
      join(ROOT, 'README.md'),
      ...['src', 'test', 'bench', 'bin', 'docs', '.ci'].flatMap((d) =>
        walk(join(ROOT, d), ['.ts', '.mjs', '.js', '.sql', '.md', '.sh', '.yaml']),
      ),
    ];
    const missing: string[] = [];
    const stale: string[] = [];
    for (const path of sources) {
      const text = readFileSync(path, 'utf8');
      for (const n of citedNumbers(text)) if (!numbers.has(n)) missing.push(`${path}: decision ${n}`);
      for (const [, target = ''] of text.matchAll(/decisions\/(\d{4}-[a-z0-9-]+\.md)/g))
        if (!existing.has(target)) missing.push(`${path}: ${target}`);
      // The index says where the records came from; nothing else may point at the old single file.
      if (
        /docs\/decisions\.md|\(decisions\.md\)/.test(text) &&
        !path.endsWith('decisions.test.ts') &&
        path !== join(DIR, 'README.md')
      )
        stale.push(path);
    }
    expect(missing).toEqual([]);
    expect(stale).toEqual([]);
    expect(sources.length).toBeGreaterThan(100);
  });

  it('reads every way a citation is written', () => {
    expect(citedNumbers('(decision 0012)')).toEqual(['0012']);
    expect(citedNumbers('(decisions 0053, 0054 and 0063)')).toEqual(['0053', '0054', '0063']);
    expect(citedNumbers('See decisions 0082 and 0083.')).toEqual(['0082', '0083']);
    expect(citedNumbers('a routing decision only')).toEqual([]);
  });
});
