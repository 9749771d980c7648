import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { keyId, open, seal } from './crypto.ts';

export const MASTER_KEY_FILE = 'vault_master_key';
export const PREVIOUS_MASTER_KEYS_FILE = 'vault_master_key.previous';

interface MasterKey {
  id: string;
  key: Buffer;
}

/**
 * The key-encryption keys. The current master key wraps new data keys; previous master keys only
 * unwrap data keys not yet re-wrapped (during a rotation). Sources: VAULT_MASTER_KEY and
 * VAULT_PREVIOUS_MASTER_KEYS; in the sandbox without them, a key file in DATA_DIR (mode 0600)
 * created on first use. Production refuses to start without VAULT_MASTER_KEY (config.ts).
 */
export class Keyring {
  private readonly byId = new Map<string, Buffer>();
  readonly current: MasterKey;

  constructor(current: Buffer, previous: Buffer[] = []) {
    this.current = { id: keyId(current), key: current };
    for (const key of [current, ...previous]) this.byId.set(keyId(key), key);
  }

  get currentId(): string {
    return this.current.id;
  }

  has(masterKeyId: string): boolean {
    return this.byId.has(masterKeyId);
  }

  wrap(dataKey: Buffer, aad: string): { wrapped: string; masterKeyId: string } {
    return { wrapped: seal(this.current.key, dataKey, aad), masterKeyId: this.current.id };
  }

  unwrap(wrapped: string, masterKeyId: string, aad: string): Buffer {
    const key = this.byId.get(masterKeyId);
    if (!key)
      throw new Error(
        `master key ${masterKeyId} is not configured (set it in VAULT_PREVIOUS_MASTER_KEYS until the rotation has finished)`,
      );
    return open(key, wrapped, aad);
  }
}

export function decodeMasterKey(value: string, variable: string): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${variable}: must be 32 random bytes in base64 (openssl rand -base64 32)`);
  return key;
}

function readKeyFile(file: string): Buffer[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => decodeMasterKey(line, file));
}

/** Builds the keyring from the configuration, creating the sandbox key file when needed. */
export function loadKeyring(
  config: Pick<Config, 'vaultMasterKey' | 'vaultPreviousMasterKeys' | 'dataDir' | 'environment'>,
): Keyring {
  const previous = config.vaultPreviousMasterKeys.map((value) => decodeMasterKey(value, 'VAULT_PREVIOUS_MASTER_KEYS'));
  if (config.vaultMasterKey) return new Keyring(decodeMasterKey(config.vaultMasterKey, 'VAULT_MASTER_KEY'), previous);
  if (config.environment === 'production') throw new Error('VAULT_MASTER_KEY: is required in production');
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  let [current] = readKeyFile(file);
  if (!current) {
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    current = randomBytes(32);
    try {
      fs.writeFileSync(file, `${current.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      [current] = readKeyFile(file);
    }
  }
  return new Keyring(current!, [...previous, ...readKeyFile(path.join(config.dataDir, PREVIOUS_MASTER_KEYS_FILE))]);
}

/**
 * Refuses a process whose master keys cannot open the database's data keys (or, `what`, its sealed
 * instance secrets): every process on one database must share VAULT_MASTER_KEY (a sandbox key file
 * is per data directory). Without this check such a process would start, then fail every request
 * that touches card data.
 */
export function assertKeyringOpens(
  keyring: Keyring,
  masterKeyIds: readonly string[],
  what = "The database's vault data keys are wrapped",
): void {
  const missing = masterKeyIds.filter((id) => !keyring.has(id));
  if (missing.length === 0) return;
  throw new Error(
    `${what} with master key ${missing.join(', ')}, which this process does not have. ` +
      'Every server process on one database must use the same VAULT_MASTER_KEY (and, during a rotation, VAULT_PREVIOUS_MASTER_KEYS).',
  );
}
