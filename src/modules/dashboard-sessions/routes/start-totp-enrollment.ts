import { defineRoute } from '../../../http/define-route.ts';
import { TotpEnrollmentSchema } from '../dashboard-sessions.schemas.ts';
import { startTotpEnrollment as start } from '../totp-enrollment.service.ts';
import { send, sessionOf } from './session-request.ts';

export const startTotpEnrollment = defineRoute({
  operationId: 'startTotpEnrollment',
  method: 'POST',
  url: '/dashboard/api/session/totp-enrollment',
  scope: null,
  tags: ['dashboard'],
  summary: 'Start enrolling an authenticator app (TOTP): a new secret and its otpauth URI',
  description:
    'Needs the x-csrf-token header. The secret is shown in this answer only, and counts once confirmed with a code.',
  status: 200,
  idempotent: false,
  merchantScoped: false,
  response: TotpEnrollmentSchema,
  handler: async ({ ctx, request, reply }) =>
    send(reply, {
      body: await start(ctx.deps, await sessionOf(ctx.deps, request, ['enrollment', 'active'])),
      setCookie: null,
    }),
});
