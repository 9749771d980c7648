import { defineRoute } from '../../../http/define-route.ts';
import { signOutEverywhere as endSessions } from '../dashboard-sessions.service.ts';
import { send, sessionOf } from './session-request.ts';

export const signOutEverywhere = defineRoute({
  operationId: 'signOutEverywhere',
  method: 'POST',
  url: '/dashboard/api/session/sign-out-everywhere',
  scope: null,
  tags: ['dashboard'],
  summary: 'Sign out everywhere: end every session of the user, this one included',
  description: 'Needs the x-csrf-token header. Clears the cookie.',
  status: 204,
  idempotent: false,
  merchantScoped: false,
  response: null,
  handler: async ({ ctx, request, reply }) => {
    send(
      reply,
      await endSessions(ctx.deps, await sessionOf(ctx.deps, request, ['enrollment', 'active']), ctx.requestId),
    );
  },
});
