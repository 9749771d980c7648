import { defineRoute } from '../../../http/define-route.ts';
import { failedLookups } from '../../../http/failed-lookups.ts';
import { completeSetup } from '../../dashboard-users/dashboard-users.service.ts';
import { SetupBody, SetupResultSchema } from '../dashboard-sessions.schemas.ts';

export const completeDashboardSetup = defineRoute({
  operationId: 'completeDashboardSetup',
  method: 'POST',
  url: '/dashboard/api/setup',
  scope: null,
  tags: ['dashboard'],
  summary: 'Set a password with a set-up link (svc users create)',
  description:
    "The token of the link is the credential: once, within 24 hours. The password needs 12 characters at least and may not contain the e-mail address. Ends the user's sessions. Unknown tokens spend the client address's failed-lookup budget.",
  status: 200,
  idempotent: false,
  merchantScoped: false,
  body: SetupBody,
  response: SetupResultSchema,
  handler: async ({ ctx, request, reply, body }) => {
    reply.header('cache-control', 'no-store');
    return failedLookups(ctx.deps).guard(request.ip, () =>
      completeSetup(ctx.deps, body.token, body.password, ctx.requestId),
    );
  },
});
