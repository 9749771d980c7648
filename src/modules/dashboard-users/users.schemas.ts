import { Type, type Static } from 'typebox';
import type { DashboardMembershipRow, DashboardUserRow } from '../../db/schema-dashboard.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { MerchantAccountIdSchema } from '../merchant-accounts/merchant-accounts.schemas.ts';
import { isRoleSlug, roleId } from '../roles/roles.catalogue.ts';

const EmailAddress = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: '^[^\\s@]{1,64}@[^\\s@]{1,253}$',
  description: 'The address the user signs in with (unique whatever its case)',
  examples: ['ada@example.com'],
});
const DisplayName = Type.String({ minLength: 1, maxLength: 200, examples: ['Ada Lovelace'] });
const UserStatus = StringEnum(['active', 'disabled'] as const, {
  description: '`disabled`: the user cannot sign in, and its sessions are refused at their next request',
});

export const RoleAssignment = Type.Object(
  {
    role_id: Uuid({ description: 'A role of GET /roles' }),
    merchant_account_id: Type.Optional(
      Nullable({
        ...MerchantAccountIdSchema,
        description: 'The merchant account the role is for; null: every account; absent: the account viewed',
      }),
    ),
  },
  { additionalProperties: false, title: 'UserRoleAssignment' },
);
export type RoleAssignment = Static<typeof RoleAssignment>;

const Assignments = (description: string, minItems: number) =>
  Type.Array(RoleAssignment, { minItems, maxItems: 50, description });

export const CreateUserBody = Type.Object(
  {
    email_address: EmailAddress,
    display_name: Type.Optional(DisplayName),
    roles: Assignments('The roles to give, each in one merchant account or in every account', 1),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    display_name: Type.Optional(DisplayName),
    status: Type.Optional(UserStatus),
    roles: Type.Optional(
      Assignments(
        "Replaces the user's roles within the caller's reach (every role for a caller not limited to one merchant account; that account's roles otherwise). Empty: none there",
        0,
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserParams = Type.Object({ user_id: Uuid() });

export const ListUsersQuery = Type.Object({
  ...PaginationQuery,
  email_address: Type.Optional(
    Type.String({ minLength: 1, maxLength: 320, description: 'Case-insensitive prefix of the e-mail address' }),
  ),
  status: Type.Optional(UserStatus),
  role_id: Type.Optional(Uuid({ description: 'Users holding this role in the merchant account viewed' })),
});
export type ListUsersQuery = Static<typeof ListUsersQuery>;

export const UserMembershipSchema = Type.Object(
  {
    merchant_account_id: Nullable(Type.String({ description: 'null: every merchant account' })),
    role_id: Uuid(),
    role_slug: Type.String({ examples: ['customer-support'] }),
  },
  { additionalProperties: false, title: 'UserMembership' },
);

export const UserSchema = Type.Object(
  {
    type: Type.Literal('user'),
    id: Uuid(),
    email_address: Type.String(),
    display_name: Type.String(),
    status: UserStatus,
    password_set: Type.Boolean({ description: 'false until the user has followed its set-up link' }),
    two_factor_enabled: Type.Boolean({ description: 'Whether the user has enrolled an authenticator (TOTP)' }),
    memberships: Type.Array(UserMembershipSchema, {
      description:
        "The user's roles: every one for a caller not limited to one merchant account; those of that account and every-account ones otherwise",
    }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'User' },
);
export type User = Static<typeof UserSchema>;

export const UsersSchema = ListEnvelope(UserSchema, 'Users');

const SetupUrl = Type.String({
  description:
    'The one-time set-up link (choose a password): in this answer only, never stored (the server keeps its SHA-256). Works once, for 24 hours',
});

export const CreatedUserSchema = Type.Object(
  {
    ...UserSchema.properties,
    setup_url: SetupUrl,
    setup_url_expires_at: DateTime(),
  },
  { additionalProperties: false, title: 'CreatedUser' },
);
export type CreatedUser = Static<typeof CreatedUserSchema>;

export const UserSetupLinkSchema = Type.Object(
  {
    type: Type.Literal('user-setup-link'),
    user_id: Uuid(),
    setup_url: SetupUrl,
    expires_at: DateTime(),
  },
  { additionalProperties: false, title: 'UserSetupLink' },
);
export type UserSetupLink = Static<typeof UserSetupLinkSchema>;

/** The only way a user row becomes an answer: no password hash, TOTP secret or token ever. */
export function toUserResource(row: DashboardUserRow, memberships: readonly DashboardMembershipRow[]): User {
  return {
    type: 'user',
    id: row.id,
    email_address: row.email,
    display_name: row.display_name,
    status: row.status,
    password_set: row.password_hash !== null,
    two_factor_enabled: row.totp_confirmed_at !== null,
    memberships: memberships
      .filter((m) => isRoleSlug(m.role))
      .map((m) => ({
        merchant_account_id: m.merchant_account_id,
        role_id: roleId(m.role as Parameters<typeof roleId>[0]),
        role_slug: m.role,
      })),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
