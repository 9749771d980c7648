import { ConfigError, customSetting, defineGroup, read, type Env, type Environment } from '../../lib/settings.ts';
import { isRoleSlug, ROLE_SLUGS, type RoleSlug } from '../roles/roles.catalogue.ts';

/** Single sign-on to the dashboard with OpenID Connect (docs/dashboard.md, "Single sign-on"). */

export interface SsoConfig {
  /** The issuer's URL: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** What the sign-in page's button says. */
  displayName: string;
  /** The ID token claim listing the user's roles (`svc_roles`). */
  rolesClaim: string;
  /** The role a user the provider names no role for gets in every account at its first sign-in; null: refused. */
  defaultRole: RoleSlug | null;
  /** Whether a user the dashboard does not know yet is created at its first single sign-on. */
  createUsers: boolean;
}

const VARIABLES = [
  {
    name: 'DASHBOARD_OIDC_ISSUER',
    default: 'unset',
    description:
      'Single sign-on to the dashboard: the OpenID Connect issuer URL (its discovery document is read from `<issuer>/.well-known/openid-configuration`); `https` in production. Unset: password sign-in only',
  },
  {
    name: 'DASHBOARD_OIDC_CLIENT_ID',
    default: 'unset',
    description: 'The client id the provider gave the dashboard (required with `DASHBOARD_OIDC_ISSUER`)',
  },
  {
    name: 'DASHBOARD_OIDC_CLIENT_SECRET',
    secret: true,
    default: 'unset',
    description:
      'Its client secret (required with `DASHBOARD_OIDC_ISSUER`). The redirect URI to register at the provider is `PUBLIC_URL/dashboard/api/sso/callback`',
  },
  {
    name: 'DASHBOARD_OIDC_NAME',
    default: '`single sign-on`',
    description: 'The provider\'s name on the sign-in page ("Sign in with …"), up to 40 characters',
  },
  {
    name: 'DASHBOARD_OIDC_ROLES_CLAIM',
    default: '`svc_roles`',
    description:
      "The ID token claim with the user's roles: role slugs (every merchant account) or `<merchant account id>:<slug>`; when present it replaces the user's roles at each sign-in",
  },
  {
    name: 'DASHBOARD_OIDC_DEFAULT_ROLE',
    default: '`analyst`',
    description:
      'The role (in every merchant account) of a user created at its first single sign-on when the provider names none; `none` refuses such a user',
  },
  {
    name: 'DASHBOARD_OIDC_CREATE_USERS',
    default: '`true`',
    description:
      '`false`: only users who exist already (created with `svc users create` or invited) may sign in with single sign-on',
  },
] as const;

function readSso(env: Env, environment: Environment): SsoConfig | null {
  const issuerRaw = read(env, 'DASHBOARD_OIDC_ISSUER');
  if (issuerRaw === undefined) return null;
  let issuer: URL;
  try {
    issuer = new URL(issuerRaw);
  } catch {
    throw new ConfigError('DASHBOARD_OIDC_ISSUER', `must be a URL, got "${issuerRaw}"`);
  }
  if (issuer.protocol !== 'https:' && (environment === 'production' || issuer.protocol !== 'http:'))
    throw new ConfigError(
      'DASHBOARD_OIDC_ISSUER',
      environment === 'production'
        ? `must be an https URL in production, got "${issuerRaw}"`
        : `must be an http or https URL, got "${issuerRaw}"`,
    );
  const clientId = read(env, 'DASHBOARD_OIDC_CLIENT_ID');
  if (clientId === undefined)
    throw new ConfigError('DASHBOARD_OIDC_CLIENT_ID', 'is required with DASHBOARD_OIDC_ISSUER');
  const clientSecret = read(env, 'DASHBOARD_OIDC_CLIENT_SECRET');
  if (clientSecret === undefined)
    throw new ConfigError('DASHBOARD_OIDC_CLIENT_SECRET', 'is required with DASHBOARD_OIDC_ISSUER');
  const displayName = read(env, 'DASHBOARD_OIDC_NAME') ?? 'single sign-on';
  if (displayName.length > 40)
    throw new ConfigError('DASHBOARD_OIDC_NAME', `must be 40 characters at most, got ${displayName.length}`);
  const rolesClaim = read(env, 'DASHBOARD_OIDC_ROLES_CLAIM') ?? 'svc_roles';
  const defaultRaw = read(env, 'DASHBOARD_OIDC_DEFAULT_ROLE') ?? 'analyst';
  if (defaultRaw !== 'none' && !isRoleSlug(defaultRaw))
    throw new ConfigError(
      'DASHBOARD_OIDC_DEFAULT_ROLE',
      `must be none or one of ${ROLE_SLUGS.join(', ')}, got "${defaultRaw}"`,
    );
  const createRaw = read(env, 'DASHBOARD_OIDC_CREATE_USERS') ?? 'true';
  if (!['true', '1', 'false', '0'].includes(createRaw))
    throw new ConfigError('DASHBOARD_OIDC_CREATE_USERS', `must be true or false, got "${createRaw}"`);
  return {
    issuer,
    clientId,
    clientSecret,
    displayName,
    rolesClaim,
    defaultRole: defaultRaw === 'none' ? null : defaultRaw,
    createUsers: createRaw === 'true' || createRaw === '1',
  };
}

export const dashboardSsoSettings = defineGroup('Dashboard single sign-on', {
  dashboardSso: customSetting(VARIABLES, readSso),
});
