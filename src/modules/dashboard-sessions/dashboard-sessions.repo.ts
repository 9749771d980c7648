import type { Insertable } from 'kysely';
import type { DashboardSessionRow, DashboardSessionsTable, DashboardUserRow } from '../../db/schema-dashboard.ts';
import type { Executor } from '../../db/transaction.ts';

export async function insertSession(
  db: Executor,
  row: Insertable<DashboardSessionsTable>,
): Promise<DashboardSessionRow> {
  return db.insertInto('dashboard_sessions').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A session that is not revoked, with its user: one read by primary key (every cookie request makes it). */
export async function findLiveSession(
  db: Executor,
  idHash: string,
): Promise<{ session: DashboardSessionRow; user: DashboardUserRow } | undefined> {
  const session = await db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!session) return undefined;
  const user = await db.selectFrom('dashboard_users').selectAll().where('id', '=', session.user_id).executeTakeFirst();
  return user ? { session, user } : undefined;
}

export async function touchSession(db: Executor, idHash: string, now: Date): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ last_seen_at: now }).where('id_hash', '=', idHash).execute();
}

export async function revokeSession(db: Executor, idHash: string, now: Date): Promise<DashboardSessionRow | undefined> {
  return db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: now })
    .where('id_hash', '=', idHash)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Revokes every live session of a user (sign out everywhere, a new password); returns how many. */
export async function revokeUserSessions(db: Executor, userId: string, now: Date): Promise<number> {
  const rows = await db
    .updateTable('dashboard_sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .execute();
  return rows.length;
}

/**
 * Deletes sessions ended by their absolute timeout before `before` (revoked or idle ones end by then
 * too), and set-up links expired before it; returns how many rows went.
 */
export async function purgeEnded(db: Executor, before: Date, batch = 10_000): Promise<number> {
  const sessions = await db
    .deleteFrom('dashboard_sessions')
    .where(
      'id_hash',
      'in',
      db.selectFrom('dashboard_sessions').select('id_hash').where('expires_at', '<', before).limit(batch),
    )
    .executeTakeFirst();
  const links = await db
    .deleteFrom('dashboard_setup_tokens')
    .where(
      'token_hash',
      'in',
      db.selectFrom('dashboard_setup_tokens').select('token_hash').where('expires_at', '<', before).limit(batch),
    )
    .executeTakeFirst();
  return Number(sessions.numDeletedRows) + Number(links.numDeletedRows);
}

/** Keeps the challenge of the WebAuthn ceremony a session starts (a newer one replaces it). */
export async function setWebauthnChallenge(
  db: Executor,
  idHash: string,
  challenge: string,
  expiresAt: Date,
): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ webauthn_challenge: challenge, webauthn_challenge_expires_at: expiresAt })
    .where('id_hash', '=', idHash)
    .execute();
}

/**
 * Takes the session's pending challenge: read under a row lock and cleared in the same
 * transaction, so two requests with one answer get it once. Null when none is pending or it expired.
 */
export async function takeWebauthnChallenge(db: Executor, idHash: string, now: Date): Promise<string | null> {
  const row = await db
    .selectFrom('dashboard_sessions')
    .select(['webauthn_challenge', 'webauthn_challenge_expires_at'])
    .where('id_hash', '=', idHash)
    .forUpdate()
    .executeTakeFirst();
  if (!row?.webauthn_challenge) return null;
  await db
    .updateTable('dashboard_sessions')
    .set({ webauthn_challenge: null, webauthn_challenge_expires_at: null })
    .where('id_hash', '=', idHash)
    .execute();
  const expiresAt = row.webauthn_challenge_expires_at;
  return expiresAt && expiresAt.getTime() > now.getTime() ? row.webauthn_challenge : null;
}
