import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, commandUsage, mainHelp, version } from './commands.ts';
import { LISTEN_SECRET_FILE, machineListenSecret } from './listen-secret.ts';

describe('the command table', () => {
  it('lists every command once in svc --help, each with a usage that starts with its own name', async () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) {
      expect(mainHelp()).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
      expect(await commandUsage(name)).toMatch(new RegExp(`^Usage: svc ${name}\\b`));
    }
    expect(await commandUsage('no-such-command')).toBeNull();
  });

  it('reads its version from package.json', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version()).toBe(pkg.version);
  });
});

describe('the listen signing secret', () => {
  it('is created once per data directory with mode 0600 and read by every later run', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secret-'));
    try {
      const first = machineListenSecret(path.join(dir, 'data'));
      expect(first.created).toBe(true);
      expect(first.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      expect(fs.statSync(first.file).mode & 0o777).toBe(0o600);
      const second = machineListenSecret(path.join(dir, 'data'));
      expect(second).toEqual({ ...first, created: false });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file that does not hold a secret, and says how to get a new one', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-secret-'));
    try {
      fs.writeFileSync(path.join(dir, LISTEN_SECRET_FILE), 'not a secret\n');
      expect(() => machineListenSecret(dir)).toThrow(
        /does not hold a signing secret .* delete it and run svc listen again/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
