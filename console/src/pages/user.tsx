import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post, put, type ListPage } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link } from '../router.tsx';
import { type DashboardUser, hasScope, sessionState } from '../session.ts';
import { useAsync } from '../ui/async.ts';
import { ConfirmAction, ErrorNotice, Loading, PageHeader, Status, Success, useAction } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';
import { assignable, type ManagedUser, type Role, rolesText } from './users-rules.ts';
import { RoleChoice, SetupLink } from './users-shared.tsx';

interface Loaded {
  user: ManagedUser;
  roles: Role[];
}

/** One user: its roles in the account viewed, disable or enable, a new set-up link (users.write). */
export function UserPage(props: PageProps): JSX.Element {
  const id = props.params.id!;
  const loaded = useAsync<Loaded>(async () => {
    const [user, roles] = await Promise.all([
      get<ManagedUser>(`/users/${encodeURIComponent(id)}`),
      get<ListPage<Role>>('/roles?limit=50'),
    ]);
    return { user, roles: roles.items };
  }, id);
  const [link, setLink] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  const canWrite = hasScope(props.scopes, 'users.write');
  if (loaded.error) return <ErrorNotice error={loaded.error} />;
  if (!loaded.data) return <Loading />;
  const { user, roles } = loaded.data;
  const self = user.id === props.user.id;
  const change = (body: unknown, message: string) =>
    action.run(async () => {
      await put(`/users/${user.id}`, body);
      setSaved(message);
      loaded.reload();
    });
  return (
    <section>
      <p>
        <Link href="/users">← Users and roles</Link>
      </p>
      <PageHeader title={user.display_name} />
      <ErrorNotice error={action.error} />
      {saved ? <Success>{saved}</Success> : null}
      {link ? <SetupLink url={link} who={user.email_address} onDone={() => setLink(null)} /> : null}
      <section class="card">
        <h2>Details</h2>
        <dl class="summary">
          {(
            [
              ['E-mail address', user.email_address],
              ['Status', <Status value={user.status} />],
              ['Password', user.password_set ? 'set' : 'not yet (invited)'],
              ['Authenticator', user.two_factor_enabled ? 'enrolled' : 'none'],
              ['Roles', rolesText(user.memberships)],
              ['Created', dateTime(user.created_at)],
            ] as Array<[string, JSX.Element | string]>
          ).map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
        {canWrite ? (
          <div class="filter-actions">
            {self ? null : user.status === 'active' ? (
              <ConfirmAction
                label="Disable user"
                danger
                question="Disable this user? Its sessions end at once."
                confirmLabel="Disable"
                onConfirm={() => change({ status: 'disabled' }, 'The user is disabled.')}
              />
            ) : (
              <button type="button" onClick={() => void change({ status: 'active' }, 'The user is enabled.')}>
                Enable user
              </button>
            )}
            <ConfirmAction
              label="New set-up link"
              question="Issue a new set-up link? Earlier links stop working and the user's sessions end."
              confirmLabel="Issue link"
              onConfirm={() =>
                action.run(async () => {
                  setLink((await post<{ setup_url: string }>(`/users/${user.id}/setup-link`)).setup_url);
                })
              }
            />
          </div>
        ) : null}
      </section>
      {canWrite ? (
        <EditRoles
          key={JSON.stringify(user.memberships)}
          me={props.user}
          scopes={props.scopes}
          user={user}
          roles={roles}
          onSave={(body) => change(body, 'The roles are saved.')}
        />
      ) : null}
    </section>
  );
}

/** The user's roles in the account viewed; its roles elsewhere are sent back as they are. */
function EditRoles(props: {
  me: DashboardUser;
  scopes: Set<string>;
  user: ManagedUser;
  roles: Role[];
  onSave: (body: unknown) => Promise<void>;
}): JSX.Element {
  const account = sessionState().account;
  const here = props.user.memberships.filter((m) => m.merchant_account_id === account).map((m) => m.role_id);
  const [chosen, setChosen] = useState<Set<string>>(new Set(here));
  const submit = (e: Event) => {
    e.preventDefault();
    const elsewhere = props.user.memberships
      .filter((m) => m.merchant_account_id !== account)
      .map((m) => ({ role_id: m.role_id, merchant_account_id: m.merchant_account_id }));
    void props.onSave({
      roles: [...elsewhere, ...[...chosen].map((id) => ({ role_id: id, merchant_account_id: account }))],
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="roles-title">
      <h2 id="roles-title">Roles in {account}</h2>
      <RoleChoice
        roles={props.roles}
        chosen={chosen}
        canGive={(r) => assignable(r, props.scopes, props.me, account)}
        onChange={setChosen}
      />
      <button type="submit">Save roles</button>
    </form>
  );
}
