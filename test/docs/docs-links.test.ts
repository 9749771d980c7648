/**
 * The documentation's links and the repository paths it names, read as a reader follows them: every
 * relative Markdown link of the docs, the README and src/connectors/README.md leads to a file, and
 * its `#anchor` to a heading of that page; every path in backticks (`src/…`, `test/…`, `docs/…`)
 * exists, a few outside paths aside (below, each with its reason). A page that walks a contributor
 * through the code (docs/adding-a-connector.md) is held to more: every code name it writes in
 * backticks occurs in src/ or test/, and a code block marked `<!-- verbatim: <path> -->` is made
 * of lines of that file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Pages whose code names must exist (a walkthrough of the code). */
const NAMES_CHECKED = ['docs/adding-a-connector.md'];

/** Paths in backticks that are not this repository's: page → path → why. */
const OUTSIDE_PATHS: Record<string, Record<string, string>> = {
  'docs/connectors-checkout.md': { 'src/services/http.js': "a file of checkout-sdk-node, Checkout.com's library" },
  'docs/connectors-gocardless.md': { 'src/api/api.ts': "a file of gocardless-nodejs, GoCardless's library" },
  'docs/decisions/0124-connectors-over-rest.md': {
    'src/services/http.js': "a file of checkout-sdk-node, Checkout.com's library",
  },
  // Spelled in two parts: decisions.test.ts refuses the former file's path anywhere but the index.
  'docs/decisions/README.md': { [['docs', 'decisions.md'].join('/')]: 'the single file the records came from' },
  'docs/dashboard.md': { 'test/browser/screenshots/': 'written by the browser tests when they run' },
  'docs/getting-started.md': { 'test/browser/screenshots/': 'written by the browser tests when they run' },
};

/** Every Markdown file under `dir`, relative to the root. */
function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return entry.endsWith('.md') ? [path] : [];
  });
}

const PAGES = [...markdownUnder('docs'), 'README.md', 'src/connectors/README.md'];
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** Fenced code blocks, which hold code, not links or names to check, cut out line by line. */
function withoutFences(text: string): string {
  let inside = false;
  return text
    .split('\n')
    .filter((line) => {
      if (line.startsWith('```')) inside = !inside;
      return !inside && !line.startsWith('```');
    })
    .join('\n');
}

/** The text spans in backticks, outside fenced blocks. */
const codeSpans = (text: string) => [...withoutFences(text).matchAll(/`([^`\n]+)`/g)].map((m) => m[1] ?? '');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading = ''] of withoutFences(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replaceAll(' ', '-');
    const count = seen.get(base);
    seen.set(base, (count ?? -1) + 1);
    anchors.add(count === undefined ? base : `${base}-${count + 1}`);
  }
  return anchors;
}

/** The relative links of a page (not inside code), as written. */
function relativeLinks(text: string): string[] {
  const prose = withoutFences(text).replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((link) => !/^(?:[a-z]+:|\/\/)/i.test(link));
}

/** Where a page's link leads, or why it leads nowhere. */
function linkProblem(page: string, link: string): string | null {
  const [file = '', anchor] = link.split('#');
  const target = file === '' ? page : relative(ROOT, join(ROOT, dirname(page), file));
  if (!existsSync(join(ROOT, target))) return `${page}: ${link} (no ${target})`;
  if (anchor && target.endsWith('.md') && !anchorsOf(read(target)).has(anchor))
    return `${page}: ${link} (no heading #${anchor} in ${target})`;
  return null;
}

/** Every word of the code: the names a page may mention. */
function codeWords(): Set<string> {
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir)).flatMap((entry) => {
      if (entry === 'node_modules' || entry.startsWith('.')) return [];
      const path = join(dir, entry);
      if (statSync(join(ROOT, path)).isDirectory()) return files(path);
      return /\.(ts|sql)$/.test(entry) ? [path] : [];
    });
  const words = new Set<string>();
  for (const file of [...files('src'), ...files('test')])
    for (const word of read(file).match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
  return words;
}

/** The code blocks marked `<!-- verbatim: path -->` on the line before their fence. */
function verbatimBlocks(text: string): Array<{ path: string; lines: string[] }> {
  const lines = text.split('\n');
  const blocks: Array<{ path: string; lines: string[] }> = [];
  lines.forEach((line, i) => {
    const path = /^<!-- verbatim: (\S+) -->$/.exec(line.trim())?.[1];
    if (!path) return;
    const end = lines.findIndex((l, n) => n > i + 1 && l.startsWith('```'));
    blocks.push({ path, lines: lines.slice(i + 2, end < 0 ? undefined : end) });
  });
  return blocks;
}

describe('happy', () => {
  it('every relative link of the docs leads to a file, and its anchor to a heading there', () => {
    const problems = PAGES.flatMap((page) => relativeLinks(read(page)).flatMap((l) => linkProblem(page, l) ?? []));
    expect(problems).toEqual([]);
    expect(PAGES.flatMap((page) => relativeLinks(read(page))).length).toBeGreaterThan(300);
  });

  it('every repository path the docs name in backticks exists', () => {
    const missing: string[] = [];
    for (const page of PAGES)
      for (const span of codeSpans(read(page))) {
        if (!/^(?:src|test|docs|bench|bin)\//.test(span) || /[<>{}*\s]/.test(span)) continue;
        const path = span.replace(/[#:].*$/, '');
        if (!existsSync(join(ROOT, path)) && !OUTSIDE_PATHS[page]?.[path]) missing.push(`${page}: ${path}`);
      }
    expect(missing).toEqual([]);
  });

  it('the outside paths it allows are still named by their pages and are not in this repository', () => {
    for (const [page, paths] of Object.entries(OUTSIDE_PATHS))
      for (const path of Object.keys(paths)) {
        expect(codeSpans(read(page)), `${page} names ${path}`).toContain(path);
        // Not committed: a folder the browser tests write (ignored by git) may exist on disk.
        const tracked = execFileSync('git', ['ls-files', '--', path], { cwd: ROOT, encoding: 'utf8' });
        expect(tracked, path).toBe('');
      }
  });

  it('a walkthrough of the code names only what exists, and copies verbatim blocks from their files', () => {
    const words = codeWords();
    for (const page of NAMES_CHECKED) {
      const text = read(page);
      const names = codeSpans(text).filter((span) => /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*(?:\(\))?$/.test(span));
      expect(names.length, page).toBeGreaterThan(100);
      const unknown = names.filter((name) =>
        name
          .replace(/\(\)$/, '')
          .split('.')
          .some((part) => !words.has(part)),
      );
      expect(unknown, page).toEqual([]);
      const blocks = verbatimBlocks(text);
      expect(blocks.length, page).toBeGreaterThan(0);
      for (const block of blocks) {
        const source = new Set(
          read(block.path)
            .split('\n')
            .map((line) => line.trim()),
        );
        const foreign = block.lines.map((line) => line.trim()).filter((line) => line !== '' && !source.has(line));
        expect(foreign, `${page}: a block marked verbatim from ${block.path}`).toEqual([]);
      }
    }
  });
});

describe('errors', () => {
  it('finds a link to a missing page or heading, and a verbatim line its file lacks', () => {
    expect(linkProblem('docs/connectors.md', 'no-such-page.md')).toMatch(/no docs\/no-such-page\.md/);
    expect(linkProblem('docs/connectors.md', 'security.md#no-such-heading')).toMatch(/no heading/);
    expect(linkProblem('docs/connectors.md', 'adding-a-connector.md#hour-7-the-contract-runner-the-checklist')).toBe(
      null,
    );
    expect(relativeLinks('see [a](x.md), `[b](y.md)` and [c](https://example.com)\n```\n[d](z.md)\n```')).toEqual([
      'x.md',
    ]);
    const [block] = verbatimBlocks('<!-- verbatim: src/connectors/connector.ts -->\n```ts\n  made up(): void;\n```');
    expect(block).toEqual({ path: 'src/connectors/connector.ts', lines: ['  made up(): void;'] });
    expect(
      read(block!.path)
        .split('\n')
        .map((line) => line.trim()),
    ).not.toContain('made up(): void;');
  });

  it('makes anchors as GitHub does', () => {
    expect([...anchorsOf('# Outbound paths, and their SSRF guard\n## A `code` name\n## Twice\n## Twice')]).toEqual([
      'outbound-paths-and-their-ssrf-guard',
      'a-code-name',
      'twice',
      'twice-1',
    ]);
  });
});
