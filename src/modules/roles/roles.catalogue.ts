import { uuidv5 } from '../../lib/ids.ts';
import { SCOPE_RESOURCES, type Scope } from '../../http/scopes.ts';

/** The base roles, then the add-ons, in the order `GET /roles` lists them. */
export const BASE_ROLES = [
  'administrator',
  'analyst',
  'customer-support',
  'system-manager',
  'system-support',
  'user-manager',
] as const;
export const ADD_ON_ROLES = ['pii-viewer', 'report-viewer', 'report-manager'] as const;
export const ROLE_SLUGS = [...BASE_ROLES, ...ADD_ON_ROLES] as const;

export type BaseRole = (typeof BASE_ROLES)[number];
export type AddOnRole = (typeof ADD_ON_ROLES)[number];
export type RoleSlug = (typeof ROLE_SLUGS)[number];

/** The base roles an add-on may join (DOCS: add-ons are valid only with `analyst` or `customer-support`). */
export const ADD_ON_BASES: readonly BaseRole[] = ['analyst', 'customer-support'];

/** Namespace of the role ids: a role's id is the UUIDv5 of its slug, the same on every instance. */
export const ROLE_ID_NAMESPACE = 'df958e4e-7790-4e51-8a77-516d9d5bf121';

const reads = (...resources: Array<(typeof SCOPE_RESOURCES)[number]>): Scope[] =>
  resources.map((r) => `${r}.read` as const);
const readWrite = (...resources: Array<(typeof SCOPE_RESOURCES)[number]>): Scope[] =>
  resources.flatMap((r) => [`${r}.read`, `${r}.write`] as const);

/** What every role may read: the catalogues a console page needs to show anything, and the user's own roles. */
const EVERY_ROLE = reads(
  'roles',
  'users.me',
  'payment-method-definitions',
  'card-scheme-definitions',
  'payment-service-definitions',
);

/** Looking at payments, view only: the analyst's reads, which customer support also has. */
const PAYMENT_READS = reads(
  'transactions',
  'buyers',
  'payment-methods',
  'checkout-sessions',
  'payment-links',
  'payouts',
  'gift-cards',
  'metrics-explorer',
  'monitoring',
);

/** Connections (payment services, wallets, 3DS, vault forward, anti-fraud) and flows. */
const SYSTEM_RESOURCES = [
  'payment-services',
  'gift-card-services',
  'anti-fraud-services',
  'connections',
  'digital-wallets',
  'apple-pay-certificates',
  'three-ds-scenarios',
  'flows',
  'payment-options',
  'webhook-subscriptions',
  'vault-forward',
  'vault-forward-configs',
  'vault-forward-authentications',
  'vault-forward-definitions',
  'metrics-explorer',
  'monitoring',
  'merchant-accounts',
  'gift-card-service-definitions',
  'anti-fraud-service-definitions',
  'api-logs',
] as const;

export interface RoleDefinition {
  name: string;
  description: string;
  /** The scopes the role grants: a token with exactly these scopes may do what the role may. */
  allow: readonly Scope[];
}

/**
 * The role catalogue: each role's scopes, in one table the compiler checks (every slug, only
 * scopes of `http/scopes.ts`). docs/dashboard.md shows the same table; a test compares them.
 * A dashboard user's scopes in a merchant account are the union of its roles' `allow` there.
 */
export const ROLES = {
  administrator: {
    name: 'Administrator',
    description: 'Full read and write access: every scope, so every other role.',
    allow: readWrite(...SCOPE_RESOURCES),
  },
  analyst: {
    name: 'Analyst',
    description: 'Transactions, buyers, the payments overview and the blocklists, view only.',
    allow: [...EVERY_ROLE, ...PAYMENT_READS, 'blocklist-entries.read'],
  },
  'customer-support': {
    name: 'Customer support',
    description: 'Transactions: look up, capture, void and refund; buyers and payment links.',
    allow: [...EVERY_ROLE, ...PAYMENT_READS, 'transactions.write', 'buyers.write', 'payment-links.write'],
  },
  'system-manager': {
    name: 'System manager',
    description: 'Connections (payment services, wallets, 3DS, vault forwarding, webhooks) and flows.',
    allow: [...EVERY_ROLE, ...readWrite(...SYSTEM_RESOURCES)],
  },
  'system-support': {
    name: 'System support',
    description: 'Connections and flows, view only.',
    allow: [...EVERY_ROLE, ...reads(...SYSTEM_RESOURCES)],
  },
  'user-manager': {
    name: 'User manager',
    description: 'Users and their roles; the audit log.',
    allow: [...EVERY_ROLE, 'audit-logs.read', 'users.read', 'users.write'],
  },
  'pii-viewer': {
    name: 'PII viewer',
    description: "Buyers' billing and shipping details unmasked (an add-on to analyst or customer support).",
    allow: ['buyers.billing-details.read'],
  },
  'report-viewer': {
    name: 'Report viewer',
    description: 'Download reports (an add-on to analyst or customer support).',
    allow: ['reports.read'],
  },
  'report-manager': {
    name: 'Report manager',
    description: 'Create, schedule and download reports (an add-on to analyst or customer support).',
    allow: ['reports.read', 'reports.write'],
  },
} as const satisfies Record<RoleSlug, RoleDefinition>;

export function isRoleSlug(value: string): value is RoleSlug {
  return (ROLE_SLUGS as readonly string[]).includes(value);
}

export function isAddOn(slug: RoleSlug): slug is AddOnRole {
  return (ADD_ON_ROLES as readonly string[]).includes(slug);
}

export const roleId = (slug: RoleSlug): string => uuidv5(slug, ROLE_ID_NAMESPACE);

const SLUG_BY_ID = new Map<string, RoleSlug>(ROLE_SLUGS.map((slug) => [roleId(slug), slug]));

/** The role with this id, or undefined. */
export const roleSlugOfId = (id: string): RoleSlug | undefined => SLUG_BY_ID.get(id.toLowerCase());

/** The scopes a set of roles grants together, sorted, each once. */
export function scopesOfRoles(slugs: Iterable<string>): string[] {
  const scopes = new Set<string>();
  for (const slug of slugs) if (isRoleSlug(slug)) for (const scope of ROLES[slug].allow) scopes.add(scope);
  return [...scopes].sort();
}

/**
 * Why a set of roles given together in one merchant account is refused, or null: unknown slugs,
 * and add-ons without one of their base roles.
 */
export function roleSetProblem(slugs: readonly string[]): string | null {
  const unknown = slugs.filter((slug) => !isRoleSlug(slug));
  if (unknown.length > 0) return `Unknown role ${unknown.join(', ')}; roles: ${ROLE_SLUGS.join(', ')}`;
  if (slugs.length === 0) return 'At least one role is needed';
  const addOns = slugs.filter((slug) => isAddOn(slug as RoleSlug));
  if (addOns.length > 0 && !slugs.some((slug) => (ADD_ON_BASES as readonly string[]).includes(slug))) {
    return `The add-on role ${addOns.join(', ')} needs ${ADD_ON_BASES.join(' or ')} in the same merchant account`;
  }
  return null;
}
