import { defineRoute } from '../../../http/define-route.ts';
import { UpdateUserBody, UserParams, UserSchema } from '../users.schemas.ts';
import { updateUser as update } from '../user-management.service.ts';

export const updateUser = defineRoute({
  operationId: 'updateUser',
  method: 'PUT',
  url: '/users/:user_id',
  scope: 'users.write',
  tags: ['users'],
  summary: 'Rename, disable or enable a dashboard user, or replace its roles',
  description:
    "Partial update: fields not sent keep their value. status disabled ends the user's sessions: its next request is refused, on every server process. " +
    "roles replaces the user's roles within the caller's reach. A user cannot disable itself nor remove its own last administrator role (403).",
  status: 200,
  params: UserParams,
  body: UpdateUserBody,
  response: UserSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.user_id, body),
});
