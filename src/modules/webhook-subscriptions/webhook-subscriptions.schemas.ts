import { Type, type Static } from 'typebox';
import type { WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery, Uuid } from '../../http/schemas/common.ts';

export const WEBHOOK_SUBSCRIPTION_TYPE = 'webhook-subscription';

/** Prefix of every signing secret: recognisable in configuration files and in log scrubbing. */
export const SECRET_PREFIX = 'whsec_';
/** What a stored password looks like in every response. */
export const MASKED_PASSWORD = '********';

const Url = () =>
  Type.String({
    minLength: 1,
    maxLength: 2048,
    description:
      'Where events are POSTed: an absolute https URL to a public address (http and private addresses only in the sandbox with WEBHOOK_ALLOW_PRIVATE_URLS=true)',
    examples: ['https://hooks.example.com/payments'],
  });

const AuthenticationInput = Type.Object(
  {
    kind: Type.Literal('basic'),
    username: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[^:]*$',
      description: 'Basic authentication user name (no colon)',
    }),
    password: Type.String({ minLength: 1, maxLength: 255, description: 'Stored encrypted; returned masked' }),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriptionAuthenticationInput',
    description: 'HTTP basic authentication sent with every delivery',
  },
);
export type AuthenticationInput = Static<typeof AuthenticationInput>;

export const CreateWebhookSubscriptionBody = Type.Object(
  {
    url: Url(),
    active: Type.Optional(Type.Boolean({ default: true, description: 'Inactive subscriptions receive no events' })),
    authentication: Type.Optional(Nullable(AuthenticationInput)),
  },
  { additionalProperties: false, title: 'WebhookSubscriptionCreate' },
);
export type CreateWebhookSubscriptionBody = Static<typeof CreateWebhookSubscriptionBody>;

/** Partial update: an absent field keeps its value; `authentication: null` removes basic authentication. */
export const UpdateWebhookSubscriptionBody = Type.Object(
  {
    url: Type.Optional(Url()),
    active: Type.Optional(Type.Boolean()),
    authentication: Type.Optional(Nullable(AuthenticationInput)),
  },
  { additionalProperties: false, title: 'WebhookSubscriptionUpdate' },
);
export type UpdateWebhookSubscriptionBody = Static<typeof UpdateWebhookSubscriptionBody>;

export const WebhookSubscriptionParams = Type.Object({
  subscription_id: Uuid({ description: 'ID of the webhook subscription' }),
});

export const ListWebhookSubscriptionsQuery = Type.Object({ ...PaginationQuery });
export type ListWebhookSubscriptionsQuery = Static<typeof ListWebhookSubscriptionsQuery>;

const CreatorSchema = Type.Object(
  {
    id: Uuid({ description: 'The API key pair that created the subscription' }),
    name: Type.String(),
    email_address: Nullable(
      Type.String({
        description: 'Always null: subscriptions are created by API key pairs, which have no e-mail address',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'WebhookSubscriptionCreator',
    description: 'Who created the subscription; personal data',
  },
);

export const WebhookSubscriptionSchema = Type.Object(
  {
    type: Type.Literal(WEBHOOK_SUBSCRIPTION_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    url: Type.String(),
    active: Type.Boolean(),
    rotating: Type.Boolean({
      description: 'True while the previous secret is still valid after a rotation (deliveries carry both signatures)',
    }),
    rotating_until: Nullable(
      DateTime({ description: 'When the previous secret stops being valid; null when not rotating' }),
    ),
    authentication: Nullable(
      Type.Object(
        {
          kind: Type.Literal('basic'),
          username: Type.String(),
          password: Type.String({ description: `Always masked (${MASKED_PASSWORD})` }),
        },
        { additionalProperties: false, title: 'WebhookSubscriptionAuthentication' },
      ),
    ),
    secret: Type.String({
      description: `Signing secret. In full only in the create and rotate-secret responses; elsewhere masked as \`${SECRET_PREFIX}…\` and its last 4 characters`,
    }),
    creator: Nullable(CreatorSchema),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'WebhookSubscription' },
);
export type WebhookSubscription = Static<typeof WebhookSubscriptionSchema>;

export const WebhookSubscriptionsSchema = ListEnvelope(WebhookSubscriptionSchema, 'WebhookSubscriptions');

export const maskSecret = (hint: string) => `${SECRET_PREFIX}…${hint || '****'}`;

/** Whether a rotation's previous secret is still valid at `now`. */
export const isRotating = (row: WebhookSubscriptionRow, now: Date) =>
  row.previous_secret_expires_at !== null && row.previous_secret_expires_at.getTime() > now.getTime();

/**
 * The only way a subscription row becomes a response. The secret is masked unless the caller
 * passes it in clear (create and rotate only); the password is always masked.
 */
export function toWebhookSubscriptionResource(
  row: WebhookSubscriptionRow,
  options: { secret?: string; now?: Date } = {},
): WebhookSubscription {
  const rotating = isRotating(row, options.now ?? new Date());
  return {
    type: WEBHOOK_SUBSCRIPTION_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    url: row.url,
    active: row.active,
    rotating,
    rotating_until: rotating ? row.previous_secret_expires_at!.toISOString() : null,
    authentication:
      row.auth_kind === 'basic'
        ? { kind: 'basic', username: row.auth_username ?? '', password: MASKED_PASSWORD }
        : null,
    secret: options.secret ?? maskSecret(row.secret_hint),
    creator: row.creator,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** How a subscription is named in audit entries: the URL's host only (a path or query may hold tokens). */
export function webhookSubscriptionAuditResource(row: WebhookSubscriptionRow): {
  type: string;
  id: string;
  name: string;
} {
  let name: string;
  try {
    name = new URL(row.url).host;
  } catch {
    name = 'webhook subscription';
  }
  return { type: WEBHOOK_SUBSCRIPTION_TYPE, id: row.id, name };
}
