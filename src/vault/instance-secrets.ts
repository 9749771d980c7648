import { randomBytes } from 'node:crypto';
import type { Executor } from '../db/transaction.ts';
import * as settings from '../modules/instance-settings/instance-settings.repo.ts';
import { DecryptionError } from './crypto.ts';
import { assertKeyringOpens, type Keyring } from './keyring.ts';

/** The instance-wide secrets: each process opens them at start-up (openInstanceSecrets, from src/deps.ts). */
export const INSTANCE_SECRETS = ['cursor_secret', 'report_download_secret', 'transaction_session_secret'] as const;
export type InstanceSecret = (typeof INSTANCE_SECRETS)[number];

/** Associated data of a sealed instance secret: bound to its setting, a value copied to another one does not open. */
export const instanceSecretAad = (key: string) => `instance_settings:${key}`;

async function sealSecret(
  keyring: Keyring,
  key: string,
  secret: Buffer,
): Promise<{ value: string; master_key_id: string }> {
  const { wrapped, masterKeyId } = await keyring.wrap(secret, instanceSecretAad(key));
  return { value: wrapped, master_key_id: masterKeyId };
}

/** Opens a sealed value; an error an operator can act on when this process cannot. */
async function openSealedSecret(
  keyring: Keyring,
  row: { key: string; value: string; master_key_id: string },
): Promise<Buffer> {
  assertKeyringOpens(keyring, [row.master_key_id], `The instance secret ${row.key} is sealed`);
  try {
    return await keyring.unwrap(row.value, row.master_key_id, instanceSecretAad(row.key));
  } catch (error) {
    if (!(error instanceof DecryptionError)) throw error;
    throw new Error(
      `The instance secret ${row.key} does not open with master key ${row.master_key_id} (VAULT_MASTER_KEY): its sealed value in instance_settings was changed or copied from another setting. ` +
        'Restore the row from a backup, or delete it to have a new secret made (cursors and report download URLs handed out before then stop working).',
    );
  }
}

/**
 * An instance-wide secret, created on first use. Every process on the database gets the same
 * value: the first insert wins and the others read it. It is stored sealed: wrapped by the vault's
 * master key as a data key is (it belongs to no merchant account, so no data key can seal it),
 * bound to its setting, with the master key's id beside it so that a rotation re-wraps it
 * (rotate.ts). A value an earlier version stored in clear is sealed here, keeping the secret: the
 * update replaces only that plaintext, so processes doing it at once agree. Throws, naming
 * VAULT_MASTER_KEY, when this process's master keys cannot open the stored value. A stored secret
 * costs one read.
 */
export async function openInstanceSecret(db: Executor, keyring: Keyring, key: string, bytes = 32): Promise<Buffer> {
  let row = await settings.findSetting(db, key);
  if (!row) {
    const secret = randomBytes(bytes);
    if (await settings.insertSettingIfAbsent(db, { key, ...(await sealSecret(keyring, key, secret)) })) return secret;
    // Another process stored it between the read and the insert: its value is the one.
    row = await settings.findSetting(db, key);
    if (!row) throw new Error(`instance setting ${key} is neither stored nor insertable`);
  }
  if (row.master_key_id === null) {
    const secret = Buffer.from(row.value, 'base64');
    await settings.sealPlaintextSetting(db, key, row.value, await sealSecret(keyring, key, secret));
    return secret;
  }
  return openSealedSecret(keyring, { ...row, master_key_id: row.master_key_id });
}

/**
 * Opens every instance secret, at start-up: one an earlier version stored in clear is sealed now,
 * one missing is made, and a process whose master keys cannot open them stops, saying why.
 */
export async function openInstanceSecrets(db: Executor, keyring: Keyring): Promise<Record<InstanceSecret, Buffer>> {
  const secrets = {} as Record<InstanceSecret, Buffer>;
  for (const key of INSTANCE_SECRETS) secrets[key] = await openInstanceSecret(db, keyring, key);
  return secrets;
}

/** Re-wraps one sealed secret under the keyring's current master key (a rotation). */
export async function rewrapSealedSecret(
  keyring: Keyring,
  row: { key: string; value: string; master_key_id: string },
): Promise<{ value: string; master_key_id: string }> {
  return sealSecret(keyring, row.key, await openSealedSecret(keyring, row));
}
