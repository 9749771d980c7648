import type { Deps } from '../../context.ts';
import type { MerchantAccountPatch, MerchantAccountRow } from '../../db/schema.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import type { Binding } from '../../vault/vault.ts';
import * as repo from './merchant-accounts.repo.ts';
import { maskSecret } from './merchant-accounts.schemas.ts';

/**
 * The secrets a merchant account holds: the loon secret key and the account updater's request
 * encryption and response decryption keys. Each is sealed by the vault under the account's data
 * key, bound to the row and its field, and kept in `sealed_secrets`; responses show `secret_masks`
 * only (`maskedSecret`), so no read opens one. Nothing in this server opens them yet: they are held
 * for the services that use them (`secretBinding` is how one would).
 */
export const SECRET_FIELDS = [
  'loon_secret_key',
  'account_updater_request_encryption_key',
  'account_updater_response_decryption_key',
] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];
export type SecretValues = Partial<Record<SecretField, string | null>>;

export const secretBinding = (accountId: string, field: SecretField): Binding => ({
  table: 'merchant_accounts',
  column: field,
  rowId: accountId,
});

/** A body without its secret fields (they are written sealed, never as sent). */
export function withoutSecrets<T extends SecretValues>(body: T): Omit<T, SecretField> {
  const {
    loon_secret_key: _loon,
    account_updater_request_encryption_key: _request,
    account_updater_response_decryption_key: _response,
    ...rest
  } = body;
  return rest;
}

type Current = Pick<MerchantAccountRow, 'id' | 'sealed_secrets' | 'secret_masks'>;

/**
 * The columns of a write that sends secrets, in the caller's transaction (the row exists and is
 * locked): each value sent is sealed and masked over what the row holds, null removes one, one not
 * sent is kept. The sent fields' plaintext columns are cleared too: a process of the previous
 * version may have written them during a rolling deploy. Null when no secret is sent.
 */
export async function secretColumns(
  db: Executor,
  deps: Deps,
  current: Current,
  values: SecretValues,
): Promise<MerchantAccountPatch | null> {
  const sent = SECRET_FIELDS.filter((field) => values[field] !== undefined);
  if (sent.length === 0) return null;
  const sealed = { ...current.sealed_secrets };
  const masks = { ...current.secret_masks };
  const patch: MerchantAccountPatch = {};
  for (const field of sent) {
    const value = values[field];
    if (value === null || value === undefined) {
      delete sealed[field];
      delete masks[field];
    } else {
      sealed[field] = await deps.vault.encrypt(db, current.id, value, secretBinding(current.id, field));
      masks[field] = maskSecret(value)!;
    }
    patch[field] = null;
  }
  return { ...patch, sealed_secrets: JSON.stringify(sealed), secret_masks: JSON.stringify(masks) };
}

/**
 * Seals what the plaintext columns still hold (rows from before migration 0039, or written by a
 * process of the previous version during a rolling deploy) and clears them, a batch of locked rows
 * per transaction. Rows another process has locked are skipped (it is sealing them, or writing
 * them: the next run finds them), so processes running this at once share the work. Idempotent:
 * a row without plaintext is never touched. Returns how many rows it sealed.
 */
export async function sealPlaintextSecrets(deps: Deps, batch = 50): Promise<number> {
  let total = 0;
  for (;;) {
    const sealed = await withTransaction(deps.db, async (tx) => {
      const rows = await repo.lockAccountsWithPlaintextSecrets(tx, batch);
      for (const row of rows) {
        const values = Object.fromEntries(
          SECRET_FIELDS.filter((field) => row[field] !== null).map((field) => [field, row[field]]),
        ) as SecretValues;
        const patch = await secretColumns(tx, deps, row, values);
        if (patch) await repo.setSecretColumns(tx, row.id, patch);
      }
      return rows.length;
    });
    total += sealed;
    if (sealed < batch) return total;
  }
}
