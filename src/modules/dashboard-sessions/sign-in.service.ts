import type { Deps } from '../../context.ts';
import type { DashboardUserRow } from '../../db/schema-dashboard.ts';
import { withTransaction } from '../../db/transaction.ts';
import { AppError, unauthorized } from '../../errors/app-error.ts';
import { RateLimiter } from '../../http/rate-limit.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { requiresSecondFactor } from '../dashboard-users/access.ts';
import * as users from '../dashboard-users/dashboard-users.repo.ts';
import { verifyAgainstDecoy, verifyPassword } from '../dashboard-users/passwords.ts';
import { secondFactorsOf } from '../dashboard-users/second-factors.ts';
import { checkTotpCode, openTotpSecret } from '../dashboard-users/totp.ts';
import { recordUserEvent } from '../dashboard-users/user-audit.ts';
import type { DashboardSession } from './dashboard-sessions.schemas.ts';
import { resolveSession, sessionAnswer, startSession, type SessionAnswer } from './dashboard-sessions.service.ts';

/** Consecutive failed passwords or codes after which a user is locked out, and for how long. */
export const MAX_FAILED_ATTEMPTS = 5;
export const LOCKOUT_SECONDS = 15 * 60;
/** Sign-in and code attempts one client address may make per minute, whatever their outcome. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 20;

const WRONG_CREDENTIALS = 'Wrong e-mail address or password';

const limiters = new WeakMap<Deps, RateLimiter>();
/** The per-address limit, counted in the database (every process shares it). */
export async function countAttempt(deps: Deps, clientAddress: string): Promise<void> {
  let limiter = limiters.get(deps);
  if (!limiter)
    limiters.set(deps, (limiter = new RateLimiter(deps.db, { limit: SIGN_IN_ATTEMPTS_PER_MINUTE, windowMs: 60_000 })));
  await limiter.hit(`dashboard-sign-in:${clientAddress}`);
}

export interface SignInInput {
  email: string;
  password: string;
  /** The session token the browser sent, if any: never reused, revoked. */
  presented: string | null;
  clientAddress: string;
  requestId: string;
}

const lockedOut = (user: DashboardUserRow) =>
  new AppError('too_many_requests', 'Too many failed sign-ins: this user is locked out for a while', {
    headers: { 'retry-after': String(Math.max(1, Math.ceil((user.locked_until!.getTime() - Date.now()) / 1000))) },
  });

export const isLocked = (user: DashboardUserRow) =>
  user.locked_until !== null && user.locked_until.getTime() > Date.now();

/** An attempt of a locked-out user: audited (not counted: the lockout runs from its start), then refused. */
export async function refuseLocked(
  deps: Deps,
  user: DashboardUserRow,
  requestId: string,
  operationId: string,
): Promise<never> {
  await withTransaction(deps.db, (tx) =>
    recordUserEvent(tx, user, {
      action: 'canceled',
      resource: { type: 'dashboard-sign-in', id: uuidv7(), name: 'failed sign-in: locked out' },
      operationId,
      requestId,
    }),
  );
  throw lockedOut(user);
}

/** What a failed attempt is answered, by its reason (the audit entry names the reason). */
const REFUSALS: Record<string, string> = {
  'wrong code': 'Wrong code',
  'passkey refused': 'The passkey was not accepted: try again',
};

/** Records a failed attempt of a known user (audit entry, lockout count) in its own transaction, then refuses. */
export async function refuse(
  deps: Deps,
  user: DashboardUserRow,
  reason: string,
  requestId: string,
  operationId: string,
): Promise<never> {
  const locked = await withTransaction(deps.db, async (tx) => {
    const counted = await users.countFailedAttempt(
      tx,
      user.id,
      MAX_FAILED_ATTEMPTS,
      new Date(Date.now() + LOCKOUT_SECONDS * 1000),
    );
    const name = `failed sign-in: ${reason}${counted.locked ? '; locked out' : ''}`;
    await recordUserEvent(tx, user, {
      action: 'canceled',
      resource: { type: 'dashboard-sign-in', id: uuidv7(), name },
      operationId,
      requestId,
    });
    return counted.locked;
  });
  throw locked
    ? unauthorized(
        `${WRONG_CREDENTIALS}; too many failed attempts: the user is locked out for ${LOCKOUT_SECONDS / 60} minutes`,
      )
    : unauthorized(REFUSALS[reason] ?? WRONG_CREDENTIALS);
}

/** Signs in the user whose session is complete: the failure count starts over, the entry is written. */
export async function completeSignIn(
  deps: Deps,
  user: DashboardUserRow,
  leaving: string | null,
  clientAddress: string,
  requestId: string,
  operationId: string,
  factor?: string,
): Promise<SessionAnswer<DashboardSession>> {
  return withTransaction(deps.db, async (tx) => {
    const fresh = await users.updateUser(tx, user.id, { failed_attempts: 0, locked_until: null });
    const stage =
      (await secondFactorsOf(tx, fresh)).length === 0 && requiresSecondFactor(await users.listMemberships(tx, user.id))
        ? 'enrollment'
        : 'active';
    const started = await startSession(tx, deps, fresh, stage, leaving, clientAddress);
    await recordUserEvent(tx, fresh, {
      action: 'created',
      resource: {
        type: 'dashboard-session',
        id: started.session.id,
        name: stage === 'active' ? `sign-in${factor ? ` with ${factor}` : ''}` : 'sign-in (second factor to enrol)',
      },
      operationId,
      requestId,
    });
    return sessionAnswer(tx, deps, started, fresh);
  });
}

/**
 * Step one: e-mail and password. A user with a second factor gets a short session waiting for its
 * code or passkey; one without gets its session (an administrator's may only enrol a second factor).
 */
export async function signIn(deps: Deps, input: SignInInput): Promise<SessionAnswer<DashboardSession>> {
  await countAttempt(deps, input.clientAddress);
  const user = await users.findUserByEmail(deps.db, input.email);
  if (!user || user.password_hash === null) {
    await verifyAgainstDecoy(input.password);
    throw unauthorized(WRONG_CREDENTIALS);
  }
  if (isLocked(user)) return refuseLocked(deps, user, input.requestId, 'signIn');
  if (!(await verifyPassword(user.password_hash, input.password)))
    return refuse(deps, user, 'wrong password', input.requestId, 'signIn');
  if (user.status !== 'active') return refuse(deps, user, 'user disabled', input.requestId, 'signIn');
  if ((await secondFactorsOf(deps.db, user)).length === 0)
    return completeSignIn(deps, user, input.presented, input.clientAddress, input.requestId, 'signIn');
  return withTransaction(deps.db, async (tx) =>
    sessionAnswer(
      tx,
      deps,
      await startSession(tx, deps, user, 'second-factor', input.presented, input.clientAddress),
      user,
    ),
  );
}

/** Step two: the TOTP code of a session waiting for it. The session id changes again. */
export async function verifySecondFactor(
  deps: Deps,
  input: { token: string | null; code: string; clientAddress: string; requestId: string },
): Promise<SessionAnswer<DashboardSession>> {
  await countAttempt(deps, input.clientAddress);
  const live = await resolveSession(deps, input.token);
  if (live?.session.stage !== 'second-factor') throw unauthorized('No sign-in waiting for a code: sign in again');
  const user = live.user;
  if (isLocked(user)) return refuseLocked(deps, user, input.requestId, 'verifySignInCode');
  // A user with passkeys only may have a TOTP secret pending (enrolment started, never confirmed): not a factor.
  if (user.totp_confirmed_at === null) return refuse(deps, user, 'wrong code', input.requestId, 'verifySignInCode');
  const secret = await openTotpSecret(deps.keyring, user.id, user.totp_sealed!, user.totp_master_key_id!);
  const step = await checkTotpCode(
    secret,
    input.code,
    user.totp_last_step === null ? null : Number(user.totp_last_step),
  );
  if (step === null || !(await users.claimTotpStep(deps.db, user.id, step)))
    return refuse(deps, user, 'wrong code', input.requestId, 'verifySignInCode');
  return completeSignIn(deps, user, input.token, input.clientAddress, input.requestId, 'verifySignInCode');
}
