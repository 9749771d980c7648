import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No import circles in src/ (STYLE: types shared by two files live in a third; factories sit above
 * their products). Every import counts: `import type`, `export … from`, `import('…')` types and
 * dynamic imports, since a circle through any of them ties the files together all the same.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Each source file of src/ (tests aside), as a path relative to src/, with the src/ files it imports. */
function importGraph(): Map<string, string[]> {
  const files = fs
    .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  const known = new Set(files.map((f) => f.split(path.sep).join('/')));
  const graph = new Map<string, string[]>();
  for (const file of known) {
    // preProcessFile is the compiler's own scanner: one linear pass that skips strings and comments.
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(SRC, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((ref) => ref.fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)))
      .filter((target) => known.has(target));
    graph.set(file, [...new Set(targets)].sort());
  }
  return graph;
}

/** The strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One circle through the first file of a component, for the failure message: `a.ts → b.ts → a.ts`, then the component's other files. */
function exampleCircle(graph: Map<string, string[]>, component: string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const next of graph.get(queue[i]!) ?? []) {
      if (next === start) {
        const chain = [start];
        for (let at: string | undefined = queue[i]; at !== undefined && at !== start; at = from.get(at))
          chain.splice(1, 0, at);
        const others = component.filter((member) => !chain.includes(member));
        return [...chain, start].join(' → ') + (others.length > 0 ? ` (with ${others.join(', ')})` : '');
      }
      if (members.has(next) && !from.has(next)) {
        from.set(next, queue[i]!);
        queue.push(next);
      }
    }
  }
  return component.join(', ');
}

describe('import circles', () => {
  it('finds none in src/', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(circles(graph).map((component) => exampleCircle(graph, component))).toEqual([]);
  });

  it('finds a circle, through a type-only import too', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(circles(graph).map((component) => exampleCircle(graph, component))).toEqual([
      'a.ts → b.ts → c.ts → a.ts',
      'e.ts → e.ts',
    ]);
    const { importedFiles } = ts.preProcessFile(
      "import type { A } from './a.ts';\nexport * from './b.ts';\nlet t: import('./c.ts').T;\nconst s = \"import './x.ts'\";\n// import './y.ts'\n",
      true,
      true,
    );
    expect(importedFiles.map((ref) => ref.fileName)).toEqual(['./a.ts', './b.ts', './c.ts']);
  });
});
