import { defineRoute } from '../../../http/define-route.ts';
import { ListUsersQuery, UsersSchema } from '../users.schemas.ts';
import { listUsers as list } from '../user-management.service.ts';

export const listUsers = defineRoute({
  operationId: 'listUsers',
  method: 'GET',
  url: '/users',
  scope: 'users.read',
  tags: ['users'],
  summary: 'List the dashboard users of the merchant account, newest first',
  description:
    'Users with a role in the merchant account viewed (x-svc-merchant-account-id) or in every account. ' +
    'email_address is a case-insensitive prefix; role_id lists the users holding that role in this account. ' +
    'Answers never hold a password hash, an authenticator secret or a token.',
  status: 200,
  querystring: ListUsersQuery,
  response: UsersSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
