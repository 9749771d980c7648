import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSvc } from '../helpers/spawn-server.ts';

/** `svc serve` and `svc migrate` against a DATABASE_URL whose port nothing listens on (issue 51, defect 10). */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-db-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const env = { DATA_DIR: dataDir, PORT: '0', DATABASE_URL: 'postgres://user:secret@127.0.0.1:1/x' };

describe('errors', () => {
  for (const command of ['serve', 'migrate']) {
    it(`svc ${command} names host:port in one line, without a stack or the password`, async () => {
      const { code, stdout, stderr } = await runSvc([command], env);
      expect(code).toBe(1);
      expect(stderr).toBe(
        `svc ${command}: cannot connect to PostgreSQL at 127.0.0.1:1 (ECONNREFUSED): is it running? check DATABASE_URL\n`,
      );
      expect(stdout + stderr).not.toContain('secret');
      expect(stdout + stderr).not.toMatch(/\n\s+at /);
    }, 60_000);
  }
});
