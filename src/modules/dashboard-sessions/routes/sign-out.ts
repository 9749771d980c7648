import { defineRoute } from '../../../http/define-route.ts';
import { signOut as endSession } from '../dashboard-sessions.service.ts';
import { send, sessionOf } from './session-request.ts';

export const signOut = defineRoute({
  operationId: 'signOut',
  method: 'DELETE',
  url: '/dashboard/api/session',
  scope: null,
  tags: ['dashboard'],
  summary: 'Sign out: end this session',
  description: 'Needs the x-csrf-token header. Clears the cookie.',
  status: 204,
  merchantScoped: false,
  response: null,
  handler: async ({ ctx, request, reply }) => {
    send(
      reply,
      await endSession(
        ctx.deps,
        await sessionOf(ctx.deps, request, ['second-factor', 'enrollment', 'active']),
        ctx.requestId,
      ),
    );
  },
});
