import { defineRoute } from '../../../http/define-route.ts';
import { CreatedUserSchema, CreateUserBody } from '../users.schemas.ts';
import { inviteUser } from '../user-management.service.ts';

export const createUser = defineRoute({
  operationId: 'createUser',
  method: 'POST',
  url: '/users',
  scope: 'users.write',
  tags: ['users'],
  summary: 'Invite a dashboard user',
  description:
    'Creates the user with its roles and answers with a one-time set-up link (setup_url) to hand over: in this answer only. ' +
    'An e-mail address in use answers 409. A caller may only give roles it may assign (docs/dashboard.md, "Managing users"): 403 otherwise. ' +
    'This operation takes no idempotency-key: a stored response would store the link.',
  status: 201,
  // The answer holds a set-up link once; storing it for replays would keep a copy of a credential.
  idempotent: false,
  body: CreateUserBody,
  response: CreatedUserSchema,
  handler: ({ ctx, body }) => inviteUser(ctx, body),
});
