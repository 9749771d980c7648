import type { Db } from '../db/client.ts';
import { withTransaction } from '../db/transaction.ts';
import * as users from '../modules/dashboard-users/dashboard-users.repo.ts';
import { totpAad } from '../modules/dashboard-users/totp.ts';
import * as settings from '../modules/instance-settings/instance-settings.repo.ts';
import * as keys from './data-keys.repo.ts';
import { rewrapSealedSecret } from './instance-secrets.ts';
import type { Keyring } from './keyring.ts';
import { wrapAad } from './vault.ts';

/**
 * Re-wraps every data key under the current master key, in small transactions, while the servers
 * keep running: they hold the new key as current and the old one as previous, so they open data
 * keys wrapped either way. The master keys may be of different providers (the key itself, AWS KMS,
 * Vault transit): a data key is unwrapped by the old one and wrapped by the new one, in memory. Card ciphertexts do not change (their data keys do not). Returns how
 * many keys were re-wrapped.
 */
export async function rewrapDataKeys(db: Db, keyring: Keyring, batch = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await withTransaction(db, async (tx) => {
      const rows = await keys.lockKeysToRewrap(tx, keyring.currentId, batch);
      for (const row of rows) {
        const aad = wrapAad(row.merchant_account_id, row.id, row.purpose);
        const { wrapped, masterKeyId } = await keyring.wrap(
          await keyring.unwrap(row.wrapped_key, row.master_key_id, aad),
          aad,
        );
        await keys.setWrappedKey(tx, row, wrapped, masterKeyId);
      }
      return rows.length;
    });
    total += done;
    if (done < batch) return total;
  }
}

/**
 * Re-wraps the sealed instance secrets (cursor and report download secrets) under the current
 * master key, as rewrapDataKeys does the data keys: their values do not change, so cursors and
 * download URLs handed out before stay valid. Returns how many were re-wrapped.
 */
export async function rewrapInstanceSecrets(db: Db, keyring: Keyring, batch = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await withTransaction(db, async (tx) => {
      const rows = await settings.lockSettingsToRewrap(tx, keyring.currentId, batch);
      for (const row of rows) await settings.setSealedSetting(tx, row.key, await rewrapSealedSecret(keyring, row));
      return rows.length;
    });
    total += done;
    if (done < batch) return total;
  }
}

/** Re-wraps the dashboard users' TOTP secrets (modules/dashboard-users/totp.ts) under the current master key. */
export async function rewrapTotpSecrets(db: Db, keyring: Keyring, batch = 100): Promise<number> {
  let total = 0;
  for (;;) {
    const done = await withTransaction(db, async (tx) => {
      const rows = await users.lockTotpSecretsToRewrap(tx, keyring.currentId, batch);
      for (const row of rows) {
        const { wrapped, masterKeyId } = await keyring.wrap(
          await keyring.unwrap(row.totp_sealed, row.totp_master_key_id, totpAad(row.id)),
          totpAad(row.id),
        );
        await users.updateUser(tx, row.id, { totp_sealed: wrapped, totp_master_key_id: masterKeyId });
      }
      return rows.length;
    });
    total += done;
    if (done < batch) return total;
  }
}
