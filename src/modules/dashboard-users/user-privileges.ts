import { ROLES, type RoleSlug } from '../roles/roles.catalogue.ts';

/** Who manages users: what the credential holds in the merchant account it acts on. */
export interface Manager {
  /** The dashboard user behind the request, or null for an API key pair. */
  userId: string | null;
  /** The merchant account the caller is limited to (`accountLimit`), or null for every account. */
  restrictedTo: string | null;
  /** The caller's roles in the account it acts on (a dashboard user's; empty for a key pair). */
  roles: readonly string[];
  holds(scope: string): boolean;
}

/** One role of a user in one merchant account, or in every account (null). */
export interface Membership {
  merchantAccountId: string | null;
  role: RoleSlug;
}

export const sameMembership = (a: Membership, b: Membership) =>
  a.merchantAccountId === b.merchantAccountId && a.role === b.role;

/** Holds every scope of `administrator` (a dashboard administrator, or a key pair with every scope). */
export function isAdministrator(manager: Manager): boolean {
  return ROLES.administrator.allow.every((scope) => manager.holds(scope));
}

/**
 * Why `manager` may not give (or take away) `membership` of the user `targetId`, or null when it
 * may (docs/dashboard.md, "Managing users"):
 * - `administrator`, and every-account memberships, only by an administrator (the latter one not
 *   limited to a merchant account);
 * - a caller limited to one merchant account, only in that account;
 * - a role whose scopes the caller holds itself; or, for a `user-manager`, any other role (it
 *   holds user-manager in every account it may name here), but never to itself.
 */
export function assignmentProblem(manager: Manager, membership: Membership, targetId: string): string | null {
  const admin = isAdministrator(manager);
  if (membership.role === 'administrator' && !admin)
    return 'Only an administrator may give or take the administrator role';
  if (membership.merchantAccountId === null && !(admin && manager.restrictedTo === null))
    return 'Only an administrator of every merchant account may give or take roles in every merchant account';
  if (manager.restrictedTo !== null && membership.merchantAccountId !== manager.restrictedTo)
    return `This credential is limited to merchant account ${manager.restrictedTo}; it may only give roles there`;
  if (ROLES[membership.role].allow.every((scope) => manager.holds(scope))) return null;
  if (manager.roles.includes('user-manager') && manager.userId !== targetId) return null;
  return `Only roles whose scopes the caller holds may be given (the caller lacks some of ${membership.role}'s)${
    manager.roles.includes('user-manager') ? '; a user manager cannot give itself roles' : ''
  }`;
}

/**
 * Why `manager` may not change the user itself (name, status, a new set-up link), or null: it must
 * be able to give that user every role it holds, so that a user manager cannot take over (reset
 * the password of) an administrator, nor a caller limited to one account a user of others.
 */
export function managementProblem(manager: Manager, targetId: string, held: readonly Membership[]): string | null {
  for (const membership of held) {
    const problem = assignmentProblem(manager, membership, targetId);
    if (problem)
      return `This user holds ${membership.role} in ${membership.merchantAccountId ?? 'every merchant account'}: ${problem}`;
  }
  return null;
}
