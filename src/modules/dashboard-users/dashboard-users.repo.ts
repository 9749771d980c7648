import { sql, type Insertable, type Updateable } from 'kysely';
import type { DashboardMembershipRow, DashboardUserRow, DashboardUsersTable } from '../../db/schema-dashboard.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import { escapeLike } from '../../db/like.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export type UserPatch = Omit<Updateable<DashboardUsersTable>, 'id' | 'created_at'>;

/** The unique index on lower(email): one user per address, whatever its case. */
export const EMAIL_INDEX = 'dashboard_users_email_key';

export async function insertUser(
  db: Executor,
  row: Insertable<DashboardUsersTable>,
): Promise<DashboardUserRow | undefined> {
  return db
    .insertInto('dashboard_users')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findUserByEmail(
  db: Executor,
  email: string,
  options: { forUpdate?: boolean } = {},
): Promise<DashboardUserRow | undefined> {
  let query = db.selectFrom('dashboard_users').selectAll().where(sql<string>`lower(email)`, '=', email.toLowerCase());
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findUser(
  db: Executor,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<DashboardUserRow | undefined> {
  let query = db.selectFrom('dashboard_users').selectAll().where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateUser(db: Executor, id: string, patch: UserPatch): Promise<DashboardUserRow> {
  return db
    .updateTable('dashboard_users')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One more failed attempt; at `maxAttempts` the user is locked until `lockUntil` and the count starts over. */
export async function countFailedAttempt(
  db: Executor,
  id: string,
  maxAttempts: number,
  lockUntil: Date,
): Promise<{ locked: boolean }> {
  const row = await db
    .updateTable('dashboard_users')
    .set({
      failed_attempts: sql<number>`CASE WHEN failed_attempts + 1 >= ${maxAttempts} THEN 0 ELSE failed_attempts + 1 END`,
      locked_until: sql<Date | null>`CASE WHEN failed_attempts + 1 >= ${maxAttempts} THEN ${lockUntil}::timestamptz ELSE locked_until END`,
    })
    .where('id', '=', id)
    .returning(['failed_attempts', 'locked_until'])
    .executeTakeFirst();
  return {
    locked:
      row?.failed_attempts === 0 && row.locked_until !== null && row.locked_until.getTime() === lockUntil.getTime(),
  };
}

export async function listMemberships(db: Executor, userId: string): Promise<DashboardMembershipRow[]> {
  return db
    .selectFrom('dashboard_memberships')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('merchant_account_id')
    .orderBy('role')
    .execute();
}

/** Gives roles in one merchant account (null: every account); roles the user holds there already stay. */
export async function addMemberships(
  db: Executor,
  userId: string,
  merchantAccountId: string | null,
  roles: readonly string[],
): Promise<void> {
  if (roles.length === 0) return;
  await db
    .insertInto('dashboard_memberships')
    .values(roles.map((role) => ({ user_id: userId, merchant_account_id: merchantAccountId, role })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export async function insertSetupToken(
  db: Executor,
  row: { token_hash: string; user_id: string; expires_at: Date },
): Promise<void> {
  await db.insertInto('dashboard_setup_tokens').values(row).execute();
}

/** Marks every unused set-up link of a user used (a newer link, or the password was set). */
export async function retireSetupTokens(db: Executor, userId: string, now: Date): Promise<void> {
  await db
    .updateTable('dashboard_setup_tokens')
    .set({ used_at: now })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/** The unused, unexpired set-up link with this hash. */
export async function findUsableSetupToken(
  db: Executor,
  tokenHash: string,
  now: Date,
  options: { forUpdate?: boolean } = {},
) {
  let query = db
    .selectFrom('dashboard_setup_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Ids of every merchant account (the accounts a user with an all-accounts role may act on). */
export async function allMerchantAccountIds(db: Executor): Promise<string[]> {
  return (await db.selectFrom('merchant_accounts').select('id').orderBy('id').execute()).map((row) => row.id);
}

/** TOTP secrets sealed by any master key but the current one, locked for re-wrapping (a rotation). */
export async function lockTotpSecretsToRewrap(db: Executor, currentMasterKeyId: string, batch: number) {
  return db
    .selectFrom('dashboard_users')
    .select(['id', 'totp_sealed', 'totp_master_key_id'])
    .where('totp_master_key_id', 'is not', null)
    .where('totp_master_key_id', '<>', currentMasterKeyId)
    .$narrowType<{ totp_sealed: string; totp_master_key_id: string }>()
    .orderBy('id')
    .limit(batch)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Accepts a TOTP time step once: false when it (or a later one) was accepted already, as by a concurrent request. */
export async function claimTotpStep(db: Executor, id: string, step: number): Promise<boolean> {
  const row = await db
    .updateTable('dashboard_users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', String(step))]))
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export interface UserFilter {
  /** The merchant account viewed: users with a role there or in every account. */
  merchantAccountId: string;
  emailPrefix?: string | undefined;
  status?: DashboardUserRow['status'] | undefined;
  role?: string | undefined;
}

/**
 * The users of a merchant account matching the filter, unordered (the caller adds the keyset
 * order). The e-mail prefix is written as the expression of `dashboard_users_email_prefix_idx`
 * (`lower(email) LIKE lower(term) || '%'`), a range scan; memberships are semi-joins on
 * `dashboard_memberships_account_role_idx`.
 */
export function usersQuery(db: Executor, filter: UserFilter) {
  const inAccount = (role?: string) =>
    sql<boolean>`EXISTS (SELECT 1 FROM dashboard_memberships m WHERE m.user_id = dashboard_users.id
      AND (m.merchant_account_id = ${filter.merchantAccountId} OR m.merchant_account_id IS NULL)
      ${role === undefined ? sql`` : sql`AND m.role = ${role}`})`;
  let query = db.selectFrom('dashboard_users').selectAll().where(inAccount(filter.role));
  if (filter.emailPrefix !== undefined)
    query = query.where(sql`lower(email)`, 'like', sql<string>`lower(${escapeLike(filter.emailPrefix)}) || '%'`);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query;
}

export async function listUsers(
  db: Executor,
  filter: UserFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<DashboardUserRow>> {
  return keysetPage(db, usersQuery(db, filter), { columns: ['created_at', 'id'], limit, position });
}

/** The memberships of several users, by user id. */
export async function membershipsOfUsers(
  db: Executor,
  userIds: readonly string[],
): Promise<Map<string, DashboardMembershipRow[]>> {
  const byUser = new Map<string, DashboardMembershipRow[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = await db
    .selectFrom('dashboard_memberships')
    .selectAll()
    .where('user_id', 'in', [...userIds])
    .orderBy('merchant_account_id')
    .orderBy('role')
    .execute();
  for (const row of rows) byUser.get(row.user_id)?.push(row);
  return byUser;
}

/** Takes roles away: each in one merchant account (null: the every-account membership). */
export async function removeMemberships(
  db: Executor,
  userId: string,
  memberships: ReadonlyArray<{ merchantAccountId: string | null; role: string }>,
): Promise<void> {
  for (const m of memberships) {
    await db
      .deleteFrom('dashboard_memberships')
      .where('user_id', '=', userId)
      .where('role', '=', m.role)
      .where(sql<boolean>`merchant_account_id IS NOT DISTINCT FROM ${m.merchantAccountId}`)
      .execute();
  }
}
