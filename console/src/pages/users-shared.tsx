import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { hasAddOnBase, type Role, withoutOrphanAddOns } from './users-rules.ts';

/** Role checkboxes: an add-on is enabled only with analyst or customer support checked. */
export function RoleChoice(props: {
  roles: Role[];
  chosen: Set<string>;
  canGive: (role: Role) => boolean;
  onChange: (chosen: Set<string>) => void;
}): JSX.Element {
  const hasBase = hasAddOnBase(props.chosen, props.roles);
  const toggle = (id: string, on: boolean) => {
    const next = new Set(props.chosen);
    if (on) next.add(id);
    else next.delete(id);
    props.onChange(withoutOrphanAddOns(next, props.roles));
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
