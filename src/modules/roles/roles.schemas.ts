import { Type, type Static } from 'typebox';
import { Cursor, ListEnvelope, Nullable, PageLimit, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { ADD_ON_BASES, isAddOn, roleId, ROLES, type RoleSlug } from './roles.catalogue.ts';

export const ListRolesQuery = Type.Object({ cursor: Type.Optional(Nullable(Cursor)), limit: PageLimit });
export type ListRolesQuery = Static<typeof ListRolesQuery>;

export const RoleSchema = Type.Object(
  {
    type: Type.Literal('role', { default: 'role' }),
    id: Uuid({ description: 'Stable: the same role has the same id on every instance' }),
    name: Type.String({ description: 'Human-readable name', examples: ['Administrator'] }),
    slug: Type.String({ description: 'Unique readable identifier', examples: ['administrator'] }),
    description: Type.String({ examples: ['Full read and write access.'] }),
    permissions: Type.Object(
      {
        allow: Type.Array(Type.String(), {
          description: 'The scopes the role grants, e.g. `["transactions.read","reports.read"]`',
        }),
      },
      { additionalProperties: false, title: 'PermissionSet' },
    ),
    assignable_to: Type.Array(StringEnum(['user', 'api-key-pair'] as const), {
      description: 'Who the role can be given to',
    }),
    applies_to: Type.Array(Type.String(), {
      description: 'Slugs of the roles this one is an add-on to; empty when it is not an add-on',
    }),
    is_standalone_assignable: Type.Boolean({ description: 'Whether it can be assigned without another role' }),
  },
  { additionalProperties: false, title: 'Role' },
);
export type Role = Static<typeof RoleSchema>;

export const RolesSchema = ListEnvelope(RoleSchema, 'Collection_Role_');

export function toRoleResource(slug: RoleSlug): Role {
  const role = ROLES[slug];
  const addOn = isAddOn(slug);
  return {
    type: 'role',
    id: roleId(slug),
    name: role.name,
    slug,
    description: role.description,
    permissions: { allow: [...new Set(role.allow)].sort() },
    assignable_to: ['user', 'api-key-pair'],
    applies_to: addOn ? [...ADD_ON_BASES] : [],
    is_standalone_assignable: !addOn,
  };
}
