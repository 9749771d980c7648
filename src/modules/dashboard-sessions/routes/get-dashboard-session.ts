import { defineRoute } from '../../../http/define-route.ts';
import { DashboardSessionSchema } from '../dashboard-sessions.schemas.ts';
import { currentSession } from '../dashboard-sessions.service.ts';
import { send, sessionOf } from './session-request.ts';

export const getDashboardSession = defineRoute({
  operationId: 'getDashboardSession',
  method: 'GET',
  url: '/dashboard/api/session',
  scope: null,
  tags: ['dashboard'],
  summary: 'The signed-in user, its merchant accounts and roles, and the CSRF token',
  status: 200,
  merchantScoped: false,
  response: DashboardSessionSchema,
  handler: async ({ ctx, request, reply }) => {
    const live = await sessionOf(ctx.deps, request, ['second-factor', 'enrollment', 'active']);
    return send(reply, { body: await currentSession(ctx.deps.db, live), setCookie: null });
  },
});
