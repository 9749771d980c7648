import { randomBytes } from 'node:crypto';
import type { Deps } from '../../context.ts';
import type { WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import type { Executor } from '../../db/transaction.ts';
import type { Binding, Sealed } from '../../vault/vault.ts';
import { SECRET_PREFIX } from './webhook-subscriptions.schemas.ts';

/**
 * How long the previous secret stays valid after a rotation: receivers get a day to deploy the
 * new secret, and deliveries carry both signatures meanwhile.
 */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** 32 random bytes (256 bits), base64url: `whsec_` + 43 characters. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The current and the previous secret share one binding (column `secret` of the row): a rotation
 * moves the current ciphertext to the previous columns without opening it.
 */
export const secretBinding = (id: string): Binding => ({ table: 'webhook_subscriptions', column: 'secret', rowId: id });
export const passwordBinding = (id: string): Binding => ({
  table: 'webhook_subscriptions',
  column: 'password',
  rowId: id,
});

export async function sealSecret(db: Executor, deps: Deps, merchantAccountId: string, id: string, secret: string) {
  const sealed = await deps.vault.encrypt(db, merchantAccountId, secret, secretBinding(id));
  return { secret_ciphertext: sealed.ciphertext, secret_key_id: sealed.keyId, secret_hint: secret.slice(-4) };
}

/** Columns of basic authentication (all null: none). */
export async function sealAuthentication(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  id: string,
  auth: { username: string; password: string } | null,
) {
  if (!auth)
    return { auth_kind: null, auth_username: null, auth_password_ciphertext: null, auth_password_key_id: null };
  const sealed = await deps.vault.encrypt(db, merchantAccountId, auth.password, passwordBinding(id));
  return {
    auth_kind: 'basic' as const,
    auth_username: auth.username,
    auth_password_ciphertext: sealed.ciphertext,
    auth_password_key_id: sealed.keyId,
  };
}

const open = (db: Executor, deps: Deps, row: WebhookSubscriptionRow, sealed: Sealed, binding: Binding) =>
  deps.vault.decrypt(db, row.merchant_account_id, sealed, binding);

export async function openSecrets(db: Executor, deps: Deps, row: WebhookSubscriptionRow, now: Date): Promise<string[]> {
  const current = await open(
    db,
    deps,
    row,
    { ciphertext: row.secret_ciphertext, keyId: row.secret_key_id },
    secretBinding(row.id),
  );
  const expiresAt = row.previous_secret_expires_at;
  if (
    !row.previous_secret_ciphertext ||
    !row.previous_secret_key_id ||
    !expiresAt ||
    expiresAt.getTime() <= now.getTime()
  )
    return [current];
  const previous = await open(
    db,
    deps,
    row,
    { ciphertext: row.previous_secret_ciphertext, keyId: row.previous_secret_key_id },
    secretBinding(row.id),
  );
  return [current, previous];
}

export async function openAuthentication(
  db: Executor,
  deps: Deps,
  row: WebhookSubscriptionRow,
): Promise<{ username: string; password: string } | null> {
  if (row.auth_kind !== 'basic' || !row.auth_password_ciphertext || !row.auth_password_key_id) return null;
  const password = await open(
    db,
    deps,
    row,
    { ciphertext: row.auth_password_ciphertext, keyId: row.auth_password_key_id },
    passwordBinding(row.id),
  );
  return { username: row.auth_username ?? '', password };
}
