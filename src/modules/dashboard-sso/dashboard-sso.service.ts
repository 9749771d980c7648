import { createHash } from 'node:crypto';
import type { Deps } from '../../context.ts';
import type { DashboardUserRow } from '../../db/schema-dashboard.ts';
import { type Tx, withTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { startSession } from '../dashboard-sessions/dashboard-sessions.service.ts';
import { sessionCookie } from '../dashboard-sessions/session-cookie.ts';
import { requiresSecondFactor } from '../dashboard-users/access.ts';
import * as users from '../dashboard-users/dashboard-users.repo.ts';
import { secondFactorsOf } from '../dashboard-users/second-factors.ts';
import { recordUserEvent } from '../dashboard-users/user-audit.ts';
import type { SsoConfig } from './dashboard-sso.config.ts';
import * as repo from './dashboard-sso.repo.ts';
import { authorizationUrl, finishLogin, newChecks, type IdentityClaims } from './oidc-client.ts';
import { clearedStateCookie, stateCookie } from './sso-cookie.ts';
import { providerDidMultiFactor, rolesOfClaim, type GrantedRole } from './sso-roles.ts';

/** How long a sign-in at the provider may take, from the button to the return. */
export const SSO_LOGIN_SECONDS = 600;

/** Why a single sign-on ended without a session: the code the sign-in page turns into a sentence. */
export type SsoFailure =
  | 'expired'
  | 'provider'
  | 'no_email'
  | 'unverified_email'
  | 'unknown_user'
  | 'disabled'
  | 'roles'
  | 'no_role'
  | 'identity_mismatch';

export class SsoRefusal extends Error {
  constructor(
    readonly code: SsoFailure,
    detail: string,
  ) {
    super(detail);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');
const RETURN_TO = /^\/[A-Za-z0-9/_-]{0,200}$/;

export function ssoOf(deps: Deps): SsoConfig {
  const sso = deps.config.dashboardSso;
  if (!sso) throw new AppError('not_found', 'Single sign-on is not configured on this server (DASHBOARD_OIDC_ISSUER)');
  return sso;
}

export const callbackUrl = (deps: Deps) => `${deps.config.publicUrl}/dashboard/api/sso/callback`;

/** A redirect of the browser: where to, and the cookies to set. */
export interface BrowserRedirect {
  location: string;
  cookies: string[];
}

/**
 * The button: remembers the sign-in (state, nonce, PKCE verifier; the state in a cookie of this
 * browser too) and sends the browser to the provider.
 */
export async function startSso(deps: Deps, returnTo: string | undefined): Promise<BrowserRedirect> {
  const sso = ssoOf(deps);
  const checks = newChecks();
  const location = await authorizationUrl(sso, callbackUrl(deps), checks);
  const now = new Date();
  await repo.purgeLogins(deps.db, now);
  await repo.insertLogin(deps.db, {
    state_hash: sha256(checks.state),
    nonce: checks.nonce,
    code_verifier: checks.codeVerifier,
    return_to: returnTo !== undefined && RETURN_TO.test(returnTo) ? returnTo : '/',
    expires_at: new Date(now.getTime() + SSO_LOGIN_SECONDS * 1000),
  });
  return { location: location.href, cookies: [stateCookie(deps.config, checks.state, SSO_LOGIN_SECONDS)] };
}

export interface SsoReturn {
  /** The return address as the browser asked for it: its query is the provider's answer. */
  query: string;
  state: string | undefined;
  /** The state this browser's cookie holds. */
  cookieState: string | null;
  /** The dashboard session token the browser sent, if any: never reused, revoked. */
  presented: string | null;
  clientAddress: string;
  requestId: string;
}

/**
 * The return from the provider: the state must be this browser's and unused, the code is
 * exchanged and the ID token checked; the user is found by its identity at the provider (bound at
 * its first single sign-on, by e-mail address), created if the settings allow, given the roles the
 * provider names, and signed in under a new session. A user whose roles require a second factor
 * the provider did not do confirms (or enrols) one here.
 */
export async function finishSso(deps: Deps, input: SsoReturn): Promise<BrowserRedirect> {
  const sso = ssoOf(deps);
  if (!input.state || !input.cookieState || input.state !== input.cookieState)
    throw new SsoRefusal('expired', 'the state is not the one this browser started with');
  const login = await repo.takeLogin(deps.db, sha256(input.state), new Date());
  if (!login) throw new SsoRefusal('expired', 'no sign-in is waiting for this state (used, expired or unknown)');
  let identity: IdentityClaims;
  try {
    identity = await finishLogin(sso, new URL(`${callbackUrl(deps)}?${input.query}`), {
      state: input.state,
      nonce: login.nonce,
      codeVerifier: login.code_verifier,
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new SsoRefusal('provider', error instanceof Error ? error.message : String(error));
  }
  const started = await withTransaction(deps.db, async (tx) => {
    const claim = rolesOfClaim(identity.claims[sso.rolesClaim]);
    const user = await userOf(tx, sso, identity, claim);
    if (claim.kind === 'problem') return refusal(tx, user, 'roles', claim.problem, input.requestId);
    if (user.status !== 'active') return refusal(tx, user, 'disabled', 'the user is disabled', input.requestId);
    if (claim.kind === 'roles') await applyRoles(tx, user.id, claim.roles);
    const memberships = await users.listMemberships(tx, user.id);
    if (memberships.length === 0)
      return refusal(tx, user, 'no_role', 'the user holds no role in any merchant account', input.requestId);
    await repo.touchIdentity(tx, identity.iss, identity.sub, new Date());
    const stage =
      !requiresSecondFactor(memberships) || providerDidMultiFactor(identity.amr)
        ? 'active'
        : (await secondFactorsOf(tx, user)).length > 0
          ? 'second-factor'
          : 'enrollment';
    const session = await startSession(tx, deps, user, stage, input.presented, input.clientAddress);
    await recordUserEvent(tx, user, {
      action: 'created',
      resource: {
        type: 'dashboard-session',
        id: session.session.id,
        name: `sign-in with single sign-on${stage === 'active' ? '' : stage === 'second-factor' ? ' (second factor to confirm)' : ' (second factor to enrol)'}`,
      },
      operationId: 'finishSingleSignOn',
      requestId: input.requestId,
    });
    return session;
  });
  if (started instanceof SsoRefusal) throw started;
  const maxAge = Math.max(0, Math.ceil((started.session.expires_at.getTime() - Date.now()) / 1000));
  return {
    location: `/dashboard${login.return_to}`,
    cookies: [sessionCookie(deps.config, started.token, maxAge), clearedStateCookie(deps.config)],
  };
}

/** The user of this identity: bound already, else found by e-mail address and bound, else created. */
async function userOf(
  tx: Tx,
  sso: SsoConfig,
  identity: IdentityClaims,
  claim: ReturnType<typeof rolesOfClaim>,
): Promise<DashboardUserRow> {
  const bound = await repo.findIdentity(tx, identity.iss, identity.sub);
  if (bound) {
    const user = await users.findUser(tx, bound.user_id, { forUpdate: true });
    if (user) return user;
  }
  if (!identity.email) throw new SsoRefusal('no_email', 'the ID token has no email claim');
  if (identity.emailVerified === false)
    throw new SsoRefusal('unverified_email', `the provider says ${identity.email} is not verified`);
  let user = await users.findUserByEmail(tx, identity.email, { forUpdate: true });
  if (user) {
    const other = await repo.findIdentityOfUser(tx, user.id, identity.iss);
    if (other && other.subject !== identity.sub)
      throw new SsoRefusal('identity_mismatch', `${identity.email} signs in as another identity of this provider`);
  } else {
    if (!sso.createUsers)
      throw new SsoRefusal(
        'unknown_user',
        `${identity.email} is not a dashboard user (DASHBOARD_OIDC_CREATE_USERS=false)`,
      );
    // A user is created only with roles: nothing is written for a sign-in that is refused.
    if (claim.kind === 'problem') throw new SsoRefusal('roles', claim.problem);
    if (claim.kind === 'absent' && sso.defaultRole === null)
      throw new SsoRefusal('no_role', 'the provider names no role and DASHBOARD_OIDC_DEFAULT_ROLE is none');
    const now = new Date();
    user = await users.insertUser(tx, {
      id: uuidv7(),
      email: identity.email,
      display_name: (identity.name ?? identity.email.split('@')[0]!).slice(0, 200),
      created_at: now,
      updated_at: now,
    });
    if (!user) throw new SsoRefusal('expired', `${identity.email} was created by another sign-in meanwhile; try again`);
    if (claim.kind === 'absent')
      await repo.replaceMemberships(tx, user.id, [{ merchantAccountId: null, role: sso.defaultRole! }]);
  }
  if (!(await repo.bindIdentity(tx, identity.iss, identity.sub, user.id)))
    throw new SsoRefusal('identity_mismatch', 'this identity was bound to another user meanwhile; try again');
  return user;
}

/** The provider's roles, in the merchant accounts that exist (a role in an unknown account is left out). */
async function applyRoles(tx: Tx, userId: string, roles: readonly GrantedRole[]) {
  const named = roles.map((r) => r.merchantAccountId).filter((id): id is string => id !== null);
  const existing = await repo.existingAccounts(tx, [...new Set(named)]);
  await repo.replaceMemberships(
    tx,
    userId,
    roles.filter((r) => r.merchantAccountId === null || existing.has(r.merchantAccountId)),
  );
}

/** A refusal of a known user: audited with the user as actor (committed), then answered. */
async function refusal(
  tx: Tx,
  user: DashboardUserRow,
  code: SsoFailure,
  detail: string,
  requestId: string,
): Promise<SsoRefusal> {
  await recordUserEvent(tx, user, {
    action: 'canceled',
    resource: { type: 'dashboard-sign-in', id: uuidv7(), name: `failed sign-in with single sign-on: ${detail}` },
    operationId: 'finishSingleSignOn',
    requestId,
  });
  return new SsoRefusal(code, detail);
}
