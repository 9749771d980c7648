import { useEffect, useState } from 'preact/hooks';
import { get, setCsrfToken, setMerchantAccount } from './api.ts';

/** The sign-in API's answers (docs/dashboard.md; src/modules/dashboard-sessions). */
export interface Membership {
  merchant_account_id: string | null;
  roles: string[];
  scopes: string[];
}

export interface DashboardUser {
  id: string;
  email: string;
  display_name: string;
  status: 'active' | 'disabled';
  totp_enrolled: boolean;
  second_factor_required: boolean;
  memberships: Membership[];
}

export interface DashboardSession {
  type: 'dashboard-session';
  stage: 'second-factor' | 'enrollment' | 'active';
  /** The user's second factors: at the `second-factor` stage, the ways to complete the sign-in. */
  second_factors: Array<'totp' | 'passkey'>;
  csrf_token: string;
  expires_at: string;
  user: DashboardUser | null;
}

export interface SessionState {
  /** undefined while the first GET /dashboard/api/session is under way; null: signed out. */
  session: DashboardSession | null | undefined;
  /** The merchant account being viewed (its header goes with every API call). */
  account: string | null;
}

const ACCOUNT_KEY = 'svc.dashboard.account';
let state: SessionState = { session: undefined, account: null };
const listeners = new Set<(s: SessionState) => void>();

function publish(next: SessionState): void {
  state = next;
  setCsrfToken(next.session?.csrf_token ?? null);
  setMerchantAccount(next.account);
  for (const listener of listeners) listener(state);
}

export const sessionState = (): SessionState => state;

/** The accounts a user has a role in by name; `everywhere`: a role in every account. */
export function accountsOf(user: DashboardUser): { named: string[]; everywhere: boolean } {
  const named = [
    ...new Set(user.memberships.map((m) => m.merchant_account_id).filter((id): id is string => id !== null)),
  ].sort();
  return { named, everywhere: user.memberships.some((m) => m.merchant_account_id === null) };
}

/** The account to show first: the last one chosen if still allowed, else the user's first. */
function initialAccount(user: DashboardUser | null): string | null {
  if (!user) return null;
  const { named, everywhere } = accountsOf(user);
  const saved = localStorage.getItem(ACCOUNT_KEY);
  if (saved && (everywhere || named.includes(saved))) return saved;
  return everywhere ? 'default' : (named[0] ?? null);
}

export function setSession(session: DashboardSession | null): void {
  if (session) publish({ session, account: state.account ?? initialAccount(session.user) });
  else publish({ session: null, account: null });
}

export function chooseAccount(account: string): void {
  localStorage.setItem(ACCOUNT_KEY, account);
  publish({ ...state, account });
}

/** The scopes the user holds in the account being viewed: its every-account roles' and that account's. */
export function scopesIn(user: DashboardUser | null | undefined, account: string | null): Set<string> {
  const scopes = new Set<string>();
  for (const m of user?.memberships ?? [])
    if (m.merchant_account_id === null || m.merchant_account_id === account) for (const s of m.scopes) scopes.add(s);
  return scopes;
}

export function hasScope(scopes: Set<string>, scope: string): boolean {
  return scopes.has(scope) || scopes.has(`*.${scope.split('.').pop()}`);
}

export async function loadSession(): Promise<void> {
  try {
    setSession(await get<DashboardSession>('/dashboard/api/session', { noAccount: true, keepOn401: true }));
  } catch {
    setSession(null);
  }
}

export function useSession(): SessionState {
  const [value, setValue] = useState(state);
  useEffect(() => {
    listeners.add(setValue);
    setValue(state);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return value;
}
