import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMBEDDED_ONLY } from '../../vitest.config.ts';

/**
 * vitest.config.ts leaves EMBEDDED_ONLY out of the PostgreSQL run of `npm test`. A file belongs
 * there exactly when it starts `svc` processes and neither builds an app in the test process nor
 * reads TEST_DATABASE_URL: then both runs test the same thing (an embedded database, or for
 * cli-database.test.ts a DATABASE_URL nothing listens on).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true }).flatMap((entry) => {
    if (!entry.isFile() || !entry.name.endsWith('.test.ts')) return [];
    const file = path.relative(ROOT, path.join(entry.parentPath, entry.name));
    return file.startsWith('test/browser/') || file.startsWith('test/reliability/') ? [] : [file];
  });
}

const usesTheDatabaseUnderTest = (text: string) => /TEST_DATABASE_URL|build-test-app|buildTestApp/.test(text);
const spawnsServers = (text: string) =>
  text.includes('helpers/spawn-server.ts') && /\b(startServer|runSvc)\(/.test(text);

describe('happy', () => {
  it('lists each file whose servers run on their own embedded database, and no other', () => {
    const files = [...testFiles('src'), ...testFiles('test')];
    const expected = files
      .filter((file) => {
        const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
        return spawnsServers(text) && !usesTheDatabaseUnderTest(text);
      })
      .sort();
    expect([...EMBEDDED_ONLY].sort()).toEqual(expected);
  });
});
