import { defineRoute } from '../../../http/define-route.ts';
import { CodeBody, DashboardSessionSchema } from '../dashboard-sessions.schemas.ts';
import { verifySecondFactor } from '../sign-in.service.ts';
import { presentedToken, send } from './session-request.ts';

export const verifySignInCode = defineRoute({
  operationId: 'verifySignInCode',
  method: 'POST',
  url: '/dashboard/api/session/totp',
  scope: null,
  tags: ['dashboard'],
  summary: 'Complete a sign-in with the code of the authenticator app',
  description: 'For a session at the `second-factor` stage. The session id changes again; a code is accepted once.',
  status: 200,
  idempotent: false,
  merchantScoped: false,
  body: CodeBody,
  response: DashboardSessionSchema,
  handler: async ({ ctx, request, reply, body }) =>
    send(
      reply,
      await verifySecondFactor(ctx.deps, {
        token: presentedToken(ctx.deps, request),
        code: body.code,
        clientAddress: request.ip,
        requestId: ctx.requestId,
      }),
    ),
});
