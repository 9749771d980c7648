import { parseArgs } from 'node:util';
import type { Deps } from '../context.ts';
import { createOrResetUser } from '../modules/dashboard-users/dashboard-users.service.ts';
import { ROLE_SLUGS } from '../modules/roles/roles.catalogue.ts';

export const USERS_HELP = `Usage: svc users create --email ADDRESS --role ROLE [--role ROLE]... [--merchant-account ID] [--name NAME]

Creates a dashboard user with these roles and prints a one-time set-up link (PUBLIC_URL/dashboard/setup?token=...)
where the user chooses a password: no e-mail server is needed, hand the link over yourself. It works
once, within 24 hours. For a user that exists already, the roles are added and a new link is printed:
the password reset (the old password works until the link is used; earlier links stop working).
  --email ADDRESS         the address the user signs in with (any case)
  --role ROLE             repeatable: ${ROLE_SLUGS.join(', ')}
                          (pii-viewer, report-viewer and report-manager only with analyst or customer-support)
  --merchant-account ID   the merchant account the roles are for (default: every merchant account)
  --name NAME             the name shown in the console and the audit log (default: the address's name part)
Administrators must enrol a second factor (an authenticator app) at their first sign-in.
With the embedded database, stop the server first: PGlite allows one process at a time.

Example:
  svc users create --email ops@example.com --role administrator`;

/** `svc users create ...` with the process's dependencies; returns the exit code. */
export async function usersCommand(deps: Deps, args: string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'create') {
    out(USERS_HELP);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      role: { type: 'string', multiple: true },
      'merchant-account': { type: 'string' },
      name: { type: 'string' },
    },
  });
  if (!values.email) throw new Error('--email is required');
  if (!values.role || values.role.length === 0) throw new Error(`--role is required (${ROLE_SLUGS.join(', ')})`);
  const link = await createOrResetUser(deps, {
    email: values.email,
    displayName: values.name,
    roles: values.role,
    merchantAccountId: values['merchant-account'] ?? null,
  });
  out(
    `${link.created ? 'created' : 'updated'} user ${link.userId} (${values.email}); set-up link, valid once until ${link.expiresAt.toISOString()}:`,
  );
  out(link.url);
  return 0;
}
