import { defineRoute } from '../../../http/define-route.ts';
import { DashboardSessionSchema, SignInBody } from '../dashboard-sessions.schemas.ts';
import { signIn as signInWithPassword } from '../sign-in.service.ts';
import { presentedToken, send } from './session-request.ts';

export const signIn = defineRoute({
  operationId: 'signIn',
  method: 'POST',
  url: '/dashboard/api/session',
  scope: null,
  tags: ['dashboard'],
  summary: 'Sign in to the dashboard with e-mail address and password',
  description:
    'Starts a session under a new id (any session cookie sent is revoked, never reused) and sets the session cookie. `stage` says what comes next: `second-factor` (send the code), `enrollment` (an administrator without a second factor enrols one) or `active`. Attempts per client address and failed attempts per user are limited.',
  status: 200,
  idempotent: false,
  merchantScoped: false,
  body: SignInBody,
  response: DashboardSessionSchema,
  handler: async ({ ctx, request, reply, body }) =>
    send(
      reply,
      await signInWithPassword(ctx.deps, {
        email: body.email,
        password: body.password,
        presented: presentedToken(ctx.deps, request),
        clientAddress: request.ip,
        requestId: ctx.requestId,
      }),
    ),
});
