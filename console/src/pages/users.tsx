import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { hasScope, sessionState } from '../session.ts';
import { useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, PageHeader, Status, useAction } from '../ui/components.tsx';
import { assignable, type ManagedUser, mayGiveEverywhere, type Role, rolesText } from './users-rules.ts';
import { RoleChoice, SetupLink } from './users-shared.tsx';

const EMPTY = { email_address: '', status: '' };

/** Users of the account viewed (invite, filter, open one), the user's own access and the role catalogue. */
export function UsersPage(props: PageProps): JSX.Element {
  const { user, scopes } = props;
  const roles = useCursorList<Role>('/roles', {}, 50);
  const [created, setCreated] = useState<ManagedUser | null>(null);
  const canRead = hasScope(scopes, 'users.read');
  const canWrite = hasScope(scopes, 'users.write');
  return (
    <section>
      <PageHeader title="Users and roles" />
      {canWrite && roles.data ? <InviteUser {...props} roles={roles.data.items} onCreated={setCreated} /> : null}
      {created?.setup_url ? (
        <SetupLink url={created.setup_url} who={created.email_address} onDone={() => setCreated(null)} />
      ) : null}
      {canRead ? <UserList key={created?.id ?? ''} /> : null}
      <section class="card">
        <h2>Your access</h2>
        <ul class="plain">
          {user.memberships.map((m) => (
            <li key={m.merchant_account_id ?? '*'}>
              {m.merchant_account_id ?? 'Every merchant account'}: {m.roles.join(', ')}
            </li>
          ))}
        </ul>
      </section>
      <section class="card">
        <h2>Roles</h2>
        <ListTable
          list={roles}
          caption="Roles"
          empty="No roles."
          rowKey={(r) => r.id}
          columns={[
            {
              title: 'Role',
              cell: (r) => `${r.name}${r.applies_to.length ? ` (add-on to ${r.applies_to.join(' or ')})` : ''}`,
            },
            { title: 'What it allows', cell: (r) => r.description },
            { title: 'Scopes', cell: (r) => <span class="scopes">{r.permissions.allow.join(', ')}</span> },
          ]}
        />
      </section>
    </section>
  );
}

function UserList(): JSX.Element {
  const [draft, setDraft] = useState(EMPTY);
  const [applied, setApplied] = useState(EMPTY);
  const list = useCursorList<ManagedUser>('/users', applied);
  const submit = (e: Event) => {
    e.preventDefault();
    setApplied(draft);
  };
  return (
    <section class="card">
      <h2>Users</h2>
      <form class="filters" onSubmit={submit} aria-label="Filter users">
        <Field label="E-mail address starts with">
          <input
            type="search"
            name="email_address"
            value={draft.email_address}
            onInput={(e) => setDraft({ ...draft, email_address: e.currentTarget.value })}
          />
        </Field>
        <Field label="Status">
          <select
            name="status"
            value={draft.status}
            onChange={(e) => setDraft({ ...draft, status: e.currentTarget.value })}
          >
            <option value="">Any</option>
            <option value="active">active</option>
            <option value="disabled">disabled</option>
          </select>
        </Field>
        <div class="filter-actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      <ListTable
        list={list}
        caption="Users"
        empty="No user matches."
        rowKey={(u) => u.id}
        columns={[
          { title: 'Name', cell: (u) => <Link href={`/users/${u.id}`}>{u.display_name}</Link> },
          { title: 'E-mail address', cell: (u) => <span class="wrap">{u.email_address}</span> },
          { title: 'Status', cell: (u) => <Status value={u.status} /> },
          { title: 'Roles', cell: (u) => rolesText(u.memberships) },
          { title: 'Signed up', cell: (u) => (u.password_set ? 'yes' : 'invited') },
        ]}
      />
    </section>
  );
}

function InviteUser(props: PageProps & { roles: Role[]; onCreated: (user: ManagedUser) => void }): JSX.Element {
  const account = sessionState().account;
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [everywhere, setEverywhere] = useState(false);
  const action = useAction();
  const wide = mayGiveEverywhere(props.user, account);
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const merchantAccountId = everywhere ? null : account;
      const body = {
        email_address: email,
        ...(name ? { display_name: name } : {}),
        roles: [...chosen].map((id) => ({ role_id: id, merchant_account_id: merchantAccountId })),
      };
      props.onCreated(await post<ManagedUser>('/users', body));
      setEmail('');
      setName('');
      setChosen(new Set());
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a user</h2>
      <ErrorNotice error={action.error} />
      <Field label="E-mail address">
        <input
          type="email"
          name="email_address"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </Field>
      <Field label="Name (optional)">
        <input name="display_name" maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </Field>
      <RoleChoice
        roles={props.roles}
        chosen={chosen}
        canGive={(r) => assignable(r, props.scopes, props.user, account)}
        onChange={setChosen}
      />
      {wide ? (
        <fieldset>
          <legend>Merchant account</legend>
          <label class="check">
            <input type="radio" name="account" checked={!everywhere} onChange={() => setEverywhere(false)} />
            This account ({account})
          </label>
          <label class="check">
            <input type="radio" name="account" checked={everywhere} onChange={() => setEverywhere(true)} />
            Every merchant account
          </label>
        </fieldset>
      ) : null}
      <button type="submit" disabled={action.busy || chosen.size === 0}>
        Invite
      </button>
    </form>
  );
}
