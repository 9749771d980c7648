import type { Deps } from '../../context.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { AppError, fieldRefusal } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { roleSetProblem } from '../roles/roles.catalogue.ts';
import { recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { revokeUserSessions } from '../dashboard-sessions/dashboard-sessions.repo.ts';
import { newToken, tokenHash } from '../dashboard-sessions/session-cookie.ts';
import * as repo from './dashboard-users.repo.ts';
import { requiresSecondFactor } from './access.ts';
import { hashPassword, passwordProblem } from './passwords.ts';
import { accountsOfUser, recordUserEvent } from './user-audit.ts';

/** How long a set-up link works (once). */
export const SETUP_LINK_TTL_SECONDS = 24 * 3600;

export interface CreateUserInput {
  email: string;
  displayName?: string | undefined;
  roles: readonly string[];
  /** The merchant account the roles are for; null: every account. */
  merchantAccountId: string | null;
}

export interface SetupLink {
  userId: string;
  created: boolean;
  url: string;
  expiresAt: Date;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/**
 * A new one-time set-up link of a user (earlier unused ones stop working): only its token's SHA-256
 * is stored, so the URL exists in the caller's answer only.
 */
export async function newSetupLink(
  tx: Tx,
  deps: Deps,
  userId: string,
  now: Date,
): Promise<{ url: string; expiresAt: Date }> {
  await repo.retireSetupTokens(tx, userId, now);
  const token = newToken();
  const expiresAt = new Date(now.getTime() + SETUP_LINK_TTL_SECONDS * 1000);
  await repo.insertSetupToken(tx, { token_hash: tokenHash(token), user_id: userId, expires_at: expiresAt });
  return { url: `${deps.config.publicUrl}/dashboard/setup?token=${token}`, expiresAt };
}

/**
 * `svc users create`: creates the user with the roles (or, for an existing user, adds them) and
 * issues a one-time set-up link; earlier unused links stop working. For an existing user the link
 * is the password reset: its password stays until the link is used.
 */
export async function createOrResetUser(deps: Deps, input: CreateUserInput): Promise<SetupLink> {
  if (!EMAIL.test(input.email)) throw new Error(`"${input.email}" is not an e-mail address`);
  const problem = roleSetProblem(input.roles);
  if (problem) throw new Error(problem);
  return withTransaction(deps.db, async (tx) => {
    const now = new Date();
    let user = await repo.findUserByEmail(tx, input.email, { forUpdate: true });
    const created = !user;
    user ??= await repo.insertUser(tx, {
      id: uuidv7(),
      email: input.email,
      display_name: input.displayName ?? input.email.split('@')[0]!,
      created_at: now,
      updated_at: now,
    });
    if (!user)
      throw new Error(`A user with the e-mail address ${input.email} was created meanwhile; run the command again`);
    await repo.addMemberships(tx, user.id, input.merchantAccountId, input.roles);
    const { url, expiresAt } = await newSetupLink(tx, deps, user.id, now);
    const name = `${created ? 'created' : 'set-up link issued'}: ${input.roles.join(', ')} in ${input.merchantAccountId ?? 'every merchant account'}`;
    for (const account of await accountsOfUser(tx, user.id)) {
      await recordSystemAudit(
        tx,
        account,
        { name: 'System (svc users create)', jobName: 'svc users create', jobId: uuidv7() },
        created ? 'created' : 'updated',
        { type: 'dashboard-user', id: user.id, name },
      );
    }
    return { userId: user.id, created, url, expiresAt };
  });
}

/**
 * The set-up page's form: sets the password of the link's user, retires the link (and any other),
 * ends the user's sessions and clears its lockout. Answers whether a second factor must be enrolled.
 */
export async function completeSetup(deps: Deps, token: string, password: string, requestId: string) {
  const hash = tokenHash(token);
  const unknown = () =>
    new AppError('not_found', 'The set-up link is unknown, used or expired: ask for a new one (svc users create)');
  // The link and the password are checked before the password is hashed: a guessed link costs no argon2 run.
  const link = await repo.findUsableSetupToken(deps.db, hash, new Date());
  const owner = link && (await repo.findUser(deps.db, link.user_id));
  if (!owner) throw unknown();
  const problem = passwordProblem(password, owner.email);
  if (problem) throw fieldRefusal('body', '/password', problem);
  const passwordHash = await hashPassword(password);
  return withTransaction(deps.db, async (tx) => {
    const now = new Date();
    if (!(await repo.findUsableSetupToken(tx, hash, now, { forUpdate: true }))) throw unknown();
    const updated = await repo.updateUser(tx, owner.id, {
      password_hash: passwordHash,
      failed_attempts: 0,
      locked_until: null,
    });
    await repo.retireSetupTokens(tx, owner.id, now);
    await revokeUserSessions(tx, owner.id, now);
    await recordUserEvent(tx, updated, {
      action: 'updated',
      resource: { type: 'dashboard-user', id: owner.id, name: 'password set' },
      operationId: 'completeDashboardSetup',
      requestId,
    });
    const memberships = await repo.listMemberships(tx, owner.id);
    return {
      type: 'dashboard-setup' as const,
      email: owner.email,
      second_factor_required: requiresSecondFactor(memberships),
      totp_enrolled: updated.totp_confirmed_at !== null,
    };
  });
}
