import { defineRoute } from '../../../http/define-route.ts';
import { CodeBody, DashboardSessionSchema } from '../dashboard-sessions.schemas.ts';
import { confirmTotpEnrollment as confirm } from '../totp-enrollment.service.ts';
import { send, sessionOf } from './session-request.ts';

export const confirmTotpEnrollment = defineRoute({
  operationId: 'confirmTotpEnrollment',
  method: 'POST',
  url: '/dashboard/api/session/totp-enrollment/confirm',
  scope: null,
  tags: ['dashboard'],
  summary: 'Confirm the authenticator app with a code it shows',
  description: 'Needs the x-csrf-token header. A session at the `enrollment` stage becomes `active` under a new id.',
  status: 200,
  idempotent: false,
  merchantScoped: false,
  body: CodeBody,
  response: DashboardSessionSchema,
  handler: async ({ ctx, request, reply, body }) =>
    send(
      reply,
      await confirm(
        ctx.deps,
        await sessionOf(ctx.deps, request, ['enrollment', 'active']),
        body.code,
        request.ip,
        ctx.requestId,
      ),
    ),
});
