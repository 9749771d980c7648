import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../src/cli/token.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime } from '../../src/deps.ts';
import { runSvc, startServer } from '../helpers/spawn-server.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rotate-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('security', () => {
  it('rotates the sandbox master key file; cards stored before still decrypt after', async () => {
    const server = await startServer({ DATA_DIR: dataDir });
    const keyFile = path.join(dataDir, 'vault_master_key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const token = await mintToken({
      privateKeyPem: fs.readFileSync(path.join(dataDir, 'private_key.pem'), 'utf8'),
      scopes: ['*.write'],
      lifetimeSeconds: 60,
    });
    const res = await fetch(`${server.baseUrl}/payment-methods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'card', number: '5555555555554444', expiration_date: '10/37' }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    expect(await server.stop()).toBe(0);

    const before = fs.readFileSync(keyFile, 'utf8');
    const rotated = await runSvc(['keys', 'rotate-vault'], { DATA_DIR: dataDir });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/re-wrapped [1-9]\d* data key\(s\) and 3 instance secret\(s\)/);
    expect(fs.readFileSync(keyFile, 'utf8')).not.toBe(before);
    expect(fs.existsSync(path.join(dataDir, 'vault_master_key.previous'))).toBe(false);

    const runtime = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    try {
      const row = await runtime.deps.db
        .selectFrom('payment_methods')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const number = await runtime.deps.vault.decrypt(
        runtime.deps.db,
        'default',
        { ciphertext: row.number_ciphertext!, keyId: row.number_key_id! },
        { table: 'payment_methods', column: 'number', rowId: id },
      );
      expect(number).toBe('5555555555554444');
    } finally {
      await runtime.close();
    }
    // Three fresh embedded databases (the server, the CLI, the runtime) each run every migration: 25 s
    // alone on a slow host, past 60 s beside the rest of the suite.
  }, 180_000);
});
