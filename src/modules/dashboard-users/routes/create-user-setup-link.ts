import { defineRoute } from '../../../http/define-route.ts';
import { UserParams, UserSetupLinkSchema } from '../users.schemas.ts';
import { issueSetupLink } from '../user-management.service.ts';

export const createUserSetupLink = defineRoute({
  operationId: 'createUserSetupLink',
  method: 'POST',
  url: '/users/:user_id/setup-link',
  scope: 'users.write',
  tags: ['users'],
  summary: 'Issue a new set-up link (a password reset)',
  description:
    "A new one-time set-up link, in this answer only; the user's earlier links stop working and its sessions end. " +
    'The password stays until the link is used.',
  status: 201,
  idempotent: false,
  params: UserParams,
  bodyOptional: true,
  response: UserSetupLinkSchema,
  handler: ({ ctx, params }) => issueSetupLink(ctx, params.user_id),
});
