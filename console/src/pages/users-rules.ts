import { type DashboardUser, hasScope } from '../session.ts';

/** The API's answers of the user routes (docs/dashboard.md, "Managing users"). */
export interface Role {
  id: string;
  slug: string;
  name: string;
  description: string;
  permissions: { allow: string[] };
  applies_to: string[];
}

export interface UserMembership {
  merchant_account_id: string | null;
  role_id: string;
  role_slug: string;
}

export interface ManagedUser {
  id: string;
  email_address: string;
  display_name: string;
  status: 'active' | 'disabled';
  password_set: boolean;
  two_factor_enabled: boolean;
  memberships: UserMembership[];
  created_at: string;
  setup_url?: string;
}

export const ADD_ON_BASES = ['analyst', 'customer-support'];

/**
 * The roles the signed-in user may give here, as the server decides (docs/dashboard.md): those
 * whose scopes it holds, or any but administrator for a user manager. The server checks anyway.
 */
export function assignable(role: Role, scopes: Set<string>, user: DashboardUser, account: string | null): boolean {
  if (role.permissions.allow.every((s) => hasScope(scopes, s))) return true;
  const managerHere = user.memberships.some(
    (m) => (m.merchant_account_id === null || m.merchant_account_id === account) && m.roles.includes('user-manager'),
  );
  return managerHere && role.slug !== 'administrator';
}

/** Whether the user may give roles in every account: an administrator of every account, not limited to this one. */
export function mayGiveEverywhere(user: DashboardUser, account: string | null): boolean {
  const admin = user.memberships.some((m) => m.merchant_account_id === null && m.roles.includes('administrator'));
  return admin && !user.memberships.some((m) => m.merchant_account_id === account);
}

export const rolesText = (memberships: UserMembership[]) =>
  memberships.map((m) => `${m.role_slug}${m.merchant_account_id === null ? ' (every account)' : ''}`).join(', ') ||
  'none here';

/** Whether the chosen role ids include a role the add-ons go with (analyst, customer support). */
export function hasAddOnBase(chosen: Set<string>, roles: readonly Role[]): boolean {
  const slugOf = new Map(roles.map((r) => [r.id, r.slug]));
  return [...chosen].some((id) => ADD_ON_BASES.includes(slugOf.get(id) ?? ''));
}

/**
 * The chosen role ids without add-ons when no base role is chosen: the server refuses an add-on
 * alone, so the form unticks them with their last base role.
 */
export function withoutOrphanAddOns(chosen: Set<string>, roles: readonly Role[]): Set<string> {
  if (hasAddOnBase(chosen, roles)) return chosen;
  const addOns = new Set(roles.filter((r) => r.applies_to.length > 0).map((r) => r.id));
  return new Set([...chosen].filter((id) => !addOns.has(id)));
}
