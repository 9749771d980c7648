import type { Deps } from '../../context.ts';
import type { DashboardSessionRow, DashboardSessionStage, DashboardUserRow } from '../../db/schema-dashboard.ts';
import { withTransaction, type Executor, type Tx } from '../../db/transaction.ts';
import { forbidden, unauthorized } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { listMemberships } from '../dashboard-users/dashboard-users.repo.ts';
import { secondFactorsOf } from '../dashboard-users/second-factors.ts';
import { recordUserEvent } from '../dashboard-users/user-audit.ts';
import * as repo from './dashboard-sessions.repo.ts';
import {
  toDashboardSessionResource,
  toDashboardUserResource,
  type DashboardSession,
} from './dashboard-sessions.schemas.ts';
import {
  clearedSessionCookie,
  csrfMatches,
  isSafeMethod,
  newToken,
  sessionCookie,
  tokenHash,
} from './session-cookie.ts';

/** How long a password-checked session waits for its second factor. */
export const SECOND_FACTOR_WINDOW_SECONDS = 300;

/** last_seen_at is written at most this often (idle timeouts are minutes; one write per request would be waste). */
const TOUCH_EVERY_MS = 30_000;

export interface LiveSession {
  token: string;
  session: DashboardSessionRow;
  user: DashboardUserRow;
}

/** A session answer: the body, and the Set-Cookie header that goes with it. */
export interface SessionAnswer<T> {
  body: T;
  setCookie: string | null;
}

/**
 * The session of a cookie token: not revoked, before its absolute end and its idle timeout, its
 * user active. Read from the database on every request (one read by primary key, one of the user
 * by primary key), so a revoked session, a disabled user or a changed role counts on the next
 * request on every process.
 */
export async function resolveSession(deps: Deps, token: string | null, now = new Date()): Promise<LiveSession | null> {
  if (!token) return null;
  const found = await repo.findLiveSession(deps.db, tokenHash(token));
  if (found?.user.status !== 'active') return null;
  const { session } = found;
  if (session.expires_at.getTime() <= now.getTime()) return null;
  if (now.getTime() - session.last_seen_at.getTime() > deps.config.dashboardSessionIdleMinutes * 60_000) return null;
  if (now.getTime() - session.last_seen_at.getTime() > TOUCH_EVERY_MS)
    await repo.touchSession(deps.db, session.id_hash, now);
  return { token, ...found };
}

/**
 * The live session of a request to a console route: 401 without one; for a method that changes
 * something, 403 unless the x-csrf-token header carries the session's CSRF token.
 */
export async function requireSession(
  deps: Deps,
  token: string | null,
  method: string,
  csrfHeader: unknown,
  stages: readonly DashboardSessionStage[],
): Promise<LiveSession> {
  const live = await resolveSession(deps, token);
  if (!live || !stages.includes(live.session.stage)) throw unauthorized('No valid dashboard session: sign in again');
  if (!isSafeMethod(method) && !csrfMatches(live.session.csrf_token, csrfHeader))
    throw forbidden('Missing or wrong x-csrf-token header');
  return live;
}

/**
 * Starts a session with a new random token, whatever token the browser sent: a session id planted
 * before sign-in (fixation) is never the one signed in. The session being left is revoked.
 */
export async function startSession(
  tx: Tx,
  deps: Deps,
  user: DashboardUserRow,
  stage: DashboardSessionStage,
  leaving: string | null,
  clientAddress: string,
): Promise<{ token: string; session: DashboardSessionRow }> {
  const now = new Date();
  if (leaving) await repo.revokeSession(tx, tokenHash(leaving), now);
  const lifetime =
    stage === 'second-factor' ? SECOND_FACTOR_WINDOW_SECONDS : deps.config.dashboardSessionAbsoluteHours * 3600;
  const token = newToken();
  const session = await repo.insertSession(tx, {
    id_hash: tokenHash(token),
    id: uuidv7(),
    user_id: user.id,
    stage,
    csrf_token: newToken(),
    client_address: clientAddress,
    created_at: now,
    last_seen_at: now,
    expires_at: new Date(now.getTime() + lifetime * 1000),
  });
  return { token, session };
}

/** The answer of a request that started a session: its body and its cookie. */
export async function sessionAnswer(
  db: Executor,
  deps: Deps,
  started: { token: string; session: DashboardSessionRow },
  user: DashboardUserRow,
): Promise<SessionAnswer<DashboardSession>> {
  const memberships = await listMemberships(db, user.id);
  const maxAge = Math.max(0, Math.ceil((started.session.expires_at.getTime() - Date.now()) / 1000));
  return {
    body: toDashboardSessionResource(
      started.session,
      toDashboardUserResource(user, memberships),
      await secondFactorsOf(db, user),
    ),
    setCookie: sessionCookie(deps.config, started.token, maxAge),
  };
}

export async function currentSession(db: Executor, live: LiveSession): Promise<DashboardSession> {
  const memberships = await listMemberships(db, live.user.id);
  return toDashboardSessionResource(
    live.session,
    toDashboardUserResource(live.user, memberships),
    await secondFactorsOf(db, live.user),
  );
}

/** Ends this session (sign out). */
export async function signOut(deps: Deps, live: LiveSession, requestId: string): Promise<SessionAnswer<null>> {
  await withTransaction(deps.db, async (tx) => {
    await repo.revokeSession(tx, live.session.id_hash, new Date());
    await recordUserEvent(tx, live.user, {
      action: 'deleted',
      resource: { type: 'dashboard-session', id: live.session.id, name: 'sign-out' },
      operationId: 'signOut',
      requestId,
    });
  });
  return { body: null, setCookie: clearedSessionCookie(deps.config) };
}

/** Ends every session of the user, this one included (a lost laptop, a shared computer). */
export async function signOutEverywhere(
  deps: Deps,
  live: LiveSession,
  requestId: string,
): Promise<SessionAnswer<null>> {
  await withTransaction(deps.db, async (tx) => {
    const count = await repo.revokeUserSessions(tx, live.user.id, new Date());
    await recordUserEvent(tx, live.user, {
      action: 'deleted',
      resource: { type: 'dashboard-session', id: live.session.id, name: `sign-out everywhere (${count} sessions)` },
      operationId: 'signOutEverywhere',
      requestId,
    });
  });
  return { body: null, setCookie: clearedSessionCookie(deps.config) };
}
