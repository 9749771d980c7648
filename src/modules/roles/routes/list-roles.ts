import { defineRoute } from '../../../http/define-route.ts';
import { ListRolesQuery, RolesSchema } from '../roles.schemas.ts';
import { listRoles as list } from '../roles.service.ts';

export const listRoles = defineRoute({
  operationId: 'listRoles',
  method: 'GET',
  url: '/roles',
  scope: 'roles.read',
  tags: ['roles'],
  summary: 'List the roles that can be assigned to users and API key pairs',
  description:
    'The role catalogue: the base roles (administrator, analyst, customer-support, system-manager, system-support, user-manager) and the add-ons (pii-viewer, report-viewer, report-manager), each with the scopes it grants. The same for every merchant account; ids are stable across instances.',
  status: 200,
  merchantScoped: false,
  querystring: ListRolesQuery,
  response: RolesSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
