import type { DashboardSsoIdentityRow, DashboardSsoLoginRow } from '../../db/schema-dashboard-sso.ts';
import type { Executor } from '../../db/transaction.ts';
import type { GrantedRole } from './sso-roles.ts';

export async function insertLogin(
  db: Executor,
  row: { state_hash: string; nonce: string; code_verifier: string; return_to: string; expires_at: Date },
): Promise<void> {
  await db.insertInto('dashboard_sso_logins').values(row).execute();
}

/** The sign-in of this state, deleted as it is read: a state is used once, and not after its end. */
export async function takeLogin(db: Executor, stateHash: string, now: Date): Promise<DashboardSsoLoginRow | undefined> {
  const row = await db
    .deleteFrom('dashboard_sso_logins')
    .where('state_hash', '=', stateHash)
    .returningAll()
    .executeTakeFirst();
  return row && row.expires_at.getTime() > now.getTime() ? row : undefined;
}

/** Sign-ins never finished, a batch at a time (by the index on expires_at). */
export async function purgeLogins(db: Executor, before: Date, batch = 1000): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_sso_logins')
    .where(
      'state_hash',
      'in',
      db.selectFrom('dashboard_sso_logins').select('state_hash').where('expires_at', '<', before).limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function findIdentity(
  db: Executor,
  issuer: string,
  subject: string,
): Promise<DashboardSsoIdentityRow | undefined> {
  return db
    .selectFrom('dashboard_sso_identities')
    .selectAll()
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

/** The user's identity at this issuer, if it has one (a user has at most one per issuer). */
export async function findIdentityOfUser(
  db: Executor,
  userId: string,
  issuer: string,
): Promise<DashboardSsoIdentityRow | undefined> {
  return db
    .selectFrom('dashboard_sso_identities')
    .selectAll()
    .where('user_id', '=', userId)
    .where('issuer', '=', issuer)
    .executeTakeFirst();
}

/** Binds an identity to a user; false when another sign-in bound it (or the user) meanwhile. */
export async function bindIdentity(db: Executor, issuer: string, subject: string, userId: string): Promise<boolean> {
  const row = await db
    .insertInto('dashboard_sso_identities')
    .values({ issuer, subject, user_id: userId })
    .onConflict((oc) => oc.doNothing())
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function touchIdentity(db: Executor, issuer: string, subject: string, now: Date): Promise<void> {
  await db
    .updateTable('dashboard_sso_identities')
    .set({ last_used_at: now })
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .execute();
}

/** The user's roles become exactly these (the provider's roles claim is the source of truth). */
export async function replaceMemberships(db: Executor, userId: string, roles: readonly GrantedRole[]): Promise<void> {
  await db.deleteFrom('dashboard_memberships').where('user_id', '=', userId).execute();
  if (roles.length === 0) return;
  await db
    .insertInto('dashboard_memberships')
    .values(roles.map((r) => ({ user_id: userId, merchant_account_id: r.merchantAccountId, role: r.role })))
    .execute();
}

/** The merchant accounts among `ids` that exist. */
export async function existingAccounts(db: Executor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('merchant_accounts').select('id').where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id));
}
