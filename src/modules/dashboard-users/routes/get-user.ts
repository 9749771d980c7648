import { defineRoute } from '../../../http/define-route.ts';
import { UserParams, UserSchema } from '../users.schemas.ts';
import { getUser as get } from '../user-management.service.ts';

export const getUser = defineRoute({
  operationId: 'getUser',
  method: 'GET',
  url: '/users/:user_id',
  scope: 'users.read',
  tags: ['users'],
  summary: 'Get a dashboard user',
  description: 'A user without a role in the merchant account viewed (or in every account) is 404.',
  status: 200,
  params: UserParams,
  response: UserSchema,
  handler: ({ ctx, params }) => get(ctx, params.user_id),
});
