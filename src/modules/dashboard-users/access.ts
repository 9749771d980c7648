import type { DashboardMembershipRow } from '../../db/schema-dashboard.ts';
import { scopesOfRoles } from '../roles/roles.catalogue.ts';

/** What a user may do in one merchant account: its roles' scopes, and the account it is held to. */
export interface AccountAccess {
  merchantAccountId: string;
  roles: string[];
  scopes: string[];
  /**
   * The merchant account the user is limited to on this request, as a key pair limited to one
   * account is (instance-wide operations then see that account only); null for a user whose roles
   * here all come from an every-account membership.
   */
  restrictedTo: string | null;
}

/**
 * The merchant account a request acts on: the one the request names, else the user's only account,
 * else `default`.
 */
export function chosenAccount(memberships: readonly DashboardMembershipRow[], requested: string | null): string {
  if (requested) return requested;
  const everywhere = memberships.some((m) => m.merchant_account_id === null);
  const accounts = [
    ...new Set(memberships.map((m) => m.merchant_account_id).filter((id): id is string => id !== null)),
  ].sort();
  return !everywhere && accounts.length > 0 ? accounts[0]! : 'default';
}

/**
 * The user's access in `merchantAccountId`, or null when it holds no role there. Roles of an
 * every-account membership and of that account's own add up; a role held for this account only
 * keeps the user limited to it, so an account's administrator cannot act on other accounts
 * through instance-wide operations.
 */
export function accessIn(
  memberships: readonly DashboardMembershipRow[],
  merchantAccountId: string,
): AccountAccess | null {
  const own = memberships.filter((m) => m.merchant_account_id === merchantAccountId).map((m) => m.role);
  const everywhere = memberships.filter((m) => m.merchant_account_id === null).map((m) => m.role);
  const roles = [...new Set([...everywhere, ...own])].sort();
  if (roles.length === 0) return null;
  return {
    merchantAccountId,
    roles,
    scopes: scopesOfRoles(roles),
    restrictedTo: own.length > 0 || everywhere.length === 0 ? merchantAccountId : null,
  };
}

/** Whether any of the user's roles requires a second factor (administrators must have one). */
export function requiresSecondFactor(memberships: readonly DashboardMembershipRow[]): boolean {
  return memberships.some((m) => m.role === 'administrator');
}
