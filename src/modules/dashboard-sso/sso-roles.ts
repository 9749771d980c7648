import { roleSetProblem } from '../roles/roles.catalogue.ts';

/** A role the identity provider gives: in one merchant account, or in every account (null). */
export interface GrantedRole {
  merchantAccountId: string | null;
  role: string;
}

const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

/**
 * The roles of the ID token's roles claim: an array (or one string) of role slugs, each for every
 * merchant account, or `<merchant account id>:<slug>` for one. `absent` when the claim is not in
 * the token; a problem (a sentence) when a value is not a role or a set breaks the add-on rule.
 */
export function rolesOfClaim(
  value: unknown,
): { kind: 'absent' } | { kind: 'roles'; roles: GrantedRole[] } | { kind: 'problem'; problem: string } {
  if (value === undefined || value === null) return { kind: 'absent' };
  const values = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(values) || values.some((v) => typeof v !== 'string'))
    return { kind: 'problem', problem: 'the roles claim is not a list of strings' };
  if (values.length === 0) return { kind: 'problem', problem: 'the roles claim lists no role' };
  const roles: GrantedRole[] = [];
  for (const raw of values as string[]) {
    const colon = raw.lastIndexOf(':');
    const account = colon === -1 ? null : raw.slice(0, colon);
    if (account !== null && !ACCOUNT_ID.test(account))
      return { kind: 'problem', problem: `"${raw}" names no valid merchant account id` };
    const role = colon === -1 ? raw : raw.slice(colon + 1);
    if (!roles.some((r) => r.merchantAccountId === account && r.role === role))
      roles.push({ merchantAccountId: account, role });
  }
  // The add-on rule holds per merchant account, every-account roles counting in each.
  const everywhere = roles.filter((r) => r.merchantAccountId === null).map((r) => r.role);
  const accounts = [...new Set(roles.map((r) => r.merchantAccountId))];
  for (const account of accounts) {
    const here = [
      ...new Set([...everywhere, ...roles.filter((r) => r.merchantAccountId === account).map((r) => r.role)]),
    ];
    const problem = roleSetProblem(here);
    if (problem) return { kind: 'problem', problem: `${problem} (roles claim)` };
  }
  return { kind: 'roles', roles };
}

/**
 * Whether the provider says the user signed in with more than a password (RFC 8176 `amr`): `mfa`,
 * or a password with one of the other factors. Administrators without it confirm with their own
 * second factor here (or enrol one).
 */
const OTHER_FACTORS = new Set(['otp', 'hwk', 'swk', 'sms', 'fpt', 'face', 'iris', 'retina', 'vbm', 'sc', 'pop']);
export function providerDidMultiFactor(amr: readonly string[]): boolean {
  if (amr.includes('mfa')) return true;
  return amr.some((method) => OTHER_FACTORS.has(method)) && amr.length > 1;
}
