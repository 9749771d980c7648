import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRuntime } from '../../src/deps.ts';
import { startVaultTransitFake, type VaultTransitFake } from '../fakes/vault-transit-fake.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { runSvc, startServer } from '../helpers/spawn-server.ts';

/**
 * `svc keys rotate-vault` as an operator runs it: a sandbox's data (its key file in DATA_DIR) moved
 * to a Vault transit key, the token given as a file (VAULT_TOKEN_FILE); then the key file can go.
 * Production refuses the sandbox's key. No command prints a key or the token, even when it fails.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-master-providers-'));
let vault: VaultTransitFake;
let tokenFile: string;
const where = { table: 'payment_methods', column: 'number', rowId: 'e2e-card' };

beforeAll(async () => {
  vault = await startVaultTransitFake();
  vault.createKey('svc');
  tokenFile = path.join(dataDir, 'vault-token');
  fs.writeFileSync(tokenFile, `${vault.token}\n`, { mode: 0o600 });
});
afterAll(async () => {
  await vault?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const transitEnv = () => ({
  DATA_DIR: dataDir,
  VAULT_MASTER_KEY_PROVIDER: 'vault-transit',
  VAULT_ADDR: vault.url,
  VAULT_TRANSIT_KEY: 'svc',
  VAULT_TOKEN_FILE: tokenFile,
  LOG_LEVEL: 'silent',
});

const expectNoKey = (output: string, keys: string[]) => {
  for (const key of keys) expect(output).not.toContain(key);
};

describe('security', () => {
  it("moves a sandbox's data keys from its key file to a Vault transit key; the card opens without the file", async () => {
    const sandbox = await createRuntime(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    let merchant: string;
    let sealed: Awaited<ReturnType<typeof sandbox.deps.vault.encrypt>>;
    try {
      merchant = await createMerchantAccount(sandbox.deps);
      sealed = await sandbox.deps.vault.encrypt(sandbox.deps.db, merchant, '4111111111111111', where);
    } finally {
      await sandbox.close();
    }
    const fileKey = fs.readFileSync(path.join(dataDir, 'vault_master_key'), 'utf8').trim();

    const rotated = await runSvc(['keys', 'rotate-vault'], transitEnv());
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(
      /re-wrapped [1-9]\d* data key\(s\) and 3 instance secret\(s\) .* under master key vault-transit:transit\/svc:v1/,
    );
    expectNoKey(rotated.stdout + rotated.stderr, [vault.token, fileKey]);

    fs.rmSync(path.join(dataDir, 'vault_master_key'));
    const after = await createRuntime(loadConfig(transitEnv()), { checkKeyring: true });
    try {
      expect(await after.deps.vault.decrypt(after.deps.db, merchant, sealed, where)).toBe('4111111111111111');
    } finally {
      await after.close();
    }
  }, 180_000);

  it("serves with the transit key; the banner names the master key's provider and id, never the token", async () => {
    const server = await startServer({ ...transitEnv(), LOG_LEVEL: 'info' });
    try {
      expect(server.output()).toContain('vault master key: vault-transit (vault-transit:transit/svc:v1)');
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expectNoKey(server.output(), [vault.token]);
  }, 120_000);

  it('fails a command whose Vault token is refused, naming Vault and not the token', async () => {
    const wrong = path.join(dataDir, 'wrong-token');
    fs.writeFileSync(wrong, 'hvs.not-the-token-0123456789\n');
    const run = await runSvc(['keys', 'rotate-vault'], { ...transitEnv(), VAULT_TOKEN_FILE: wrong });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Vault transit: GET /v1/transit/keys/svc answered 403: permission denied');
    expectNoKey(run.stdout + run.stderr, ['hvs.not-the-token-0123456789', vault.token]);
  }, 60_000);

  it("refuses production with the sandbox's generated key, without printing it", async () => {
    const sandboxDir = fs.mkdtempSync(path.join(dataDir, 'sandbox-'));
    const sandbox = await createRuntime(loadConfig({ DATA_DIR: sandboxDir, LOG_LEVEL: 'silent' }));
    await sandbox.close();
    const keyFile = path.join(sandboxDir, 'vault_master_key');
    const run = await runSvc(['keys', 'rotate-vault'], {
      DATA_DIR: sandboxDir,
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY_FILE: keyFile,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("VAULT_MASTER_KEY: is the sandbox's generated key");
    expectNoKey(run.stdout + run.stderr, [fs.readFileSync(keyFile, 'utf8').trim()]);
  }, 120_000);
});
