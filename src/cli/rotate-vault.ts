import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { createRuntime } from '../deps.ts';
import { MASTER_KEY_FILE, PREVIOUS_MASTER_KEYS_FILE, loadKeyring } from '../vault/keyring.ts';
import { rewrapDataKeys, rewrapInstanceSecrets, rewrapTotpSecrets } from '../vault/rotate.ts';

/**
 * Sandbox key files: the new key becomes current, the old one is appended to the previous-keys
 * file, so the re-wrap (and any process started meanwhile) can still open data keys.
 */
function rotateKeyFile(dataDir: string): void {
  const current = path.join(dataDir, MASTER_KEY_FILE);
  const previous = path.join(dataDir, PREVIOUS_MASTER_KEYS_FILE);
  if (fs.existsSync(current)) fs.appendFileSync(previous, fs.readFileSync(current, 'utf8'), { mode: 0o600 });
  const next = `${current}.next`;
  fs.writeFileSync(next, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  fs.renameSync(next, current);
}

export async function rotateVault(config: Config): Promise<string> {
  const fileMode = config.vaultMasterKeyProvider === 'env' && config.vaultMasterKey === null;
  if (fileMode) {
    await loadKeyring(config);
    rotateKeyFile(config.dataDir);
  }
  const runtime = await createRuntime(config);
  try {
    const count = await rewrapDataKeys(runtime.deps.db, runtime.deps.keyring);
    const secrets = await rewrapInstanceSecrets(runtime.deps.db, runtime.deps.keyring);
    const totp = await rewrapTotpSecrets(runtime.deps.db, runtime.deps.keyring);
    if (fileMode) fs.rmSync(path.join(config.dataDir, PREVIOUS_MASTER_KEYS_FILE), { force: true });
    return `re-wrapped ${count} data key(s) and ${secrets} instance secret(s) (and ${totp} dashboard TOTP secret(s)) under master key ${runtime.deps.keyring.currentId}${fileMode ? '' : '; remove the old key from VAULT_PREVIOUS_MASTER_KEYS once every server runs with the new one'}`;
  } finally {
    await runtime.close();
  }
}
