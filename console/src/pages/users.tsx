import type { JSX } from 'preact';
import type { PageProps } from '../pages.tsx';
import { useCursorList } from '../ui/async.ts';
import { ListTable, PageHeader } from '../ui/components.tsx';

interface Role {
  id: string;
  slug: string;
  name: string;
  description: string;
  permissions: { allow: string[] };
  applies_to: string[];
}

/**
 * The role catalogue (GET /roles) and the signed-in user's own roles. Users are created and given
 * roles with `svc users create` (docs/dashboard.md): the public API has no user-management route yet.
 */
export function UsersPage({ user }: PageProps): JSX.Element {
  const roles = useCursorList<Role>('/roles', {}, 50);
  return (
    <section>
      <PageHeader title="Users and roles" />
      <section class="card">
        <h2>Your access</h2>
        <ul class="plain">
          {user.memberships.map((m) => (
            <li key={m.merchant_account_id ?? '*'}>
              {m.merchant_account_id ?? 'Every merchant account'}: {m.roles.join(', ')}
            </li>
          ))}
        </ul>
        <p class="muted">
          To invite someone, run <code>svc users create --email ADDRESS --role ROLE</code> on the server: it prints a
          one-time set-up link to hand over.
        </p>
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
