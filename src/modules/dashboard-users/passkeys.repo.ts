import type { Insertable } from 'kysely';
import type { DashboardPasskeyRow, DashboardPasskeysTable } from '../../db/schema-dashboard.ts';
import type { Executor } from '../../db/transaction.ts';

/** The unique index on credential_id: one passkey row per credential, whoever registers it. */
export const CREDENTIAL_INDEX = 'dashboard_passkeys_credential_key';

export async function insertPasskey(
  db: Executor,
  row: Insertable<DashboardPasskeysTable>,
): Promise<DashboardPasskeyRow | undefined> {
  return db
    .insertInto('dashboard_passkeys')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function listPasskeys(db: Executor, userId: string): Promise<DashboardPasskeyRow[]> {
  return db
    .selectFrom('dashboard_passkeys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function countPasskeys(db: Executor, userId: string): Promise<number> {
  const row = await db
    .selectFrom('dashboard_passkeys')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** A passkey of this user by its credential id (another user's credential is not found). */
export async function findUserPasskey(
  db: Executor,
  userId: string,
  credentialId: string,
): Promise<DashboardPasskeyRow | undefined> {
  return db
    .selectFrom('dashboard_passkeys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
}

/**
 * Records a sign-in with the passkey: its new signature counter, if the counter is still the one
 * the check was made against (a concurrent sign-in with a copy of the same authenticator loses).
 */
export async function recordPasskeyUse(
  db: Executor,
  id: string,
  checkedCount: number,
  newCount: number,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('dashboard_passkeys')
    .set({ sign_count: newCount, last_used_at: now })
    .where('id', '=', id)
    .where('sign_count', '=', checkedCount)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function deletePasskey(
  db: Executor,
  userId: string,
  id: string,
): Promise<DashboardPasskeyRow | undefined> {
  return db
    .deleteFrom('dashboard_passkeys')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
