/**
 * Every scope a token can carry. Each operation names one of the `<resource>.read` /
 * `<resource>.write` scopes in its route definition (type-checked against this list), and the
 * OpenAPI document publishes the operation → scope map (`x-required-scopes`, `x-scopes`).
 */
export const SCOPE_RESOURCES = [
  'anti-fraud-service-definitions',
  'anti-fraud-services',
  'api-key-pairs',
  'api-logs',
  'apple-pay-certificates',
  'audit-logs',
  'blocklist-entries',
  'buyers',
  'buyers.billing-details',
  'card-scheme-definitions',
  'checkout-sessions',
  'connections',
  'digital-wallets',
  'flows',
  'gift-card-service-definitions',
  'gift-card-services',
  'gift-cards',
  'merchant-accounts',
  'metrics-explorer',
  'monitoring',
  'payment-links',
  'payment-method-definitions',
  'payment-methods',
  'payment-options',
  'payment-service-definitions',
  'payment-services',
  'payouts',
  'reports',
  'roles',
  'three-ds-scenarios',
  'transactions',
  'users',
  'users.me',
  'vault-forward',
  'vault-forward-authentications',
  'vault-forward-configs',
  'vault-forward-definitions',
  'webhook-subscriptions',
] as const;

export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}.read` | `${ScopeResource}.write`;

/** Grants every read or every write; `embed` marks a browser or app token (see http/embed.ts). */
export const SPECIAL_SCOPES = ['*.read', '*.write', 'embed'] as const;

export const ALL_SCOPES: readonly string[] = [
  ...SPECIAL_SCOPES,
  ...SCOPE_RESOURCES.flatMap((r) => [`${r}.read`, `${r}.write`]),
];
