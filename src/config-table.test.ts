import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configurationVariables, withConfigurationTable } from './config.ts';

/** docs/configuration.md's table is the settings' own (issue 51): generated, and checked here. */

const SRC = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.dirname(SRC);
const sourceFiles = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) =>
      entry.isDirectory()
        ? sourceFiles(path.join(dir, entry.name))
        : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')
          ? [path.join(dir, entry.name)]
          : [],
    );

describe('happy', () => {
  it('docs/configuration.md holds the table the settings render (npm run docs:config rewrites it)', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
    expect(withConfigurationTable(doc) === doc, 'docs/configuration.md is out of date: run npm run docs:config').toBe(
      true,
    );
  });

  it('documents each variable once, with a default and a description on one line', () => {
    const variables = configurationVariables();
    expect(new Set(variables.map((v) => v.name)).size).toBe(variables.length);
    for (const v of variables) {
      expect(v.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      for (const text of [v.default, v.description])
        expect(text.length > 0 && !text.includes('\n') && !text.includes('|'), `${v.name}: ${text}`).toBe(true);
    }
  });

  it('documents every variable a settings file names, and only the settings files read the environment', () => {
    const documented = new Set(configurationVariables().map((v) => v.name));
    const files = sourceFiles(SRC);
    const settingsFiles = files.filter((file) => file.endsWith('.config.ts'));
    expect(settingsFiles.length).toBeGreaterThan(10);
    for (const file of settingsFiles) {
      const named = [...fs.readFileSync(file, 'utf8').matchAll(/'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PORT|HOST)'/g)].map(
        (m) => m[1]!,
      );
      for (const name of named) expect(documented.has(name), `${path.relative(ROOT, file)} names ${name}`).toBe(true);
    }
    const readers = files.filter((file) =>
      /process\.env\b/.test(fs.readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')),
    );
    expect(readers.map((file) => path.relative(ROOT, file))).toEqual(['src/config.ts']);
  });
});
