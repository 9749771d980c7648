import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { DashboardUser } from '../session.ts';
import { hasScope } from '../session.ts';

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

/** Role checkboxes: an add-on is enabled only with analyst or customer support checked. */
export function RoleChoice(props: {
  roles: Role[];
  chosen: Set<string>;
  canGive: (role: Role) => boolean;
  onChange: (chosen: Set<string>) => void;
}): JSX.Element {
  const slugOf = new Map(props.roles.map((r) => [r.id, r.slug]));
  const hasBase = [...props.chosen].some((id) => ADD_ON_BASES.includes(slugOf.get(id) ?? ''));
  const toggle = (id: string, on: boolean) => {
    const next = new Set(props.chosen);
    if (on) next.add(id);
    else next.delete(id);
    // Without a base role the add-ons go too: the server refuses them alone.
    if (![...next].some((r) => ADD_ON_BASES.includes(slugOf.get(r) ?? '')))
      for (const r of props.roles) if (r.applies_to.length > 0) next.delete(r.id);
    props.onChange(next);
  };
  return (
    <fieldset>
      <legend>Roles</legend>
      {props.roles.map((r) => {
        const addOn = r.applies_to.length > 0;
        const disabled = !props.canGive(r) || (addOn && !hasBase);
        return (
          <label class="check" key={r.id}>
            <input
              type="checkbox"
              name="role"
              value={r.slug}
              checked={props.chosen.has(r.id)}
              disabled={disabled}
              onChange={(e) => toggle(r.id, e.currentTarget.checked)}
            />
            {r.name}
            {addOn ? ' (add-on: with analyst or customer support)' : ''}
          </label>
        );
      })}
    </fieldset>
  );
}

/** A set-up link: shown once, with a Copy button. */
export function SetupLink(props: { url: string; who: string; onDone: () => void }): JSX.Element {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(props.url).catch(() => undefined);
    setCopied(true);
  };
  return (
    <section class="card once" aria-labelledby="setup-link-title">
      <h2 id="setup-link-title">Set-up link for {props.who}</h2>
      <p>
        <strong>Copy it now: it is shown this once.</strong> Hand it to the person; it works once, for 24 hours, and
        lets them choose a password.
      </p>
      <input readOnly class="mono" aria-label="Set-up link" data-testid="setup-url" value={props.url} />
      <div class="filter-actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy link'}
        </button>
        <button type="button" class="secondary" onClick={props.onDone}>
          Done
        </button>
      </div>
    </section>
  );
}
