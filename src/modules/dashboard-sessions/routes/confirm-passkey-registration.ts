import { defineRoute } from '../../../http/define-route.ts';
import { DashboardSessionSchema } from '../dashboard-sessions.schemas.ts';
import { PasskeyRegistrationBody } from '../passkeys.schemas.ts';
import { confirmPasskeyRegistration as confirm } from '../passkey-enrollment.service.ts';
import { relyingParty } from '../webauthn.ts';
import { send, sessionOf } from './session-request.ts';

export const confirmPasskeyRegistration = defineRoute({
  operationId: 'confirmPasskeyRegistration',
  method: 'POST',
  url: '/dashboard/api/session/passkey-registration/confirm',
  scope: null,
  tags: ['dashboard'],
  summary: "Register the passkey: the authenticator's answer to the registration options",
  description:
    "Needs the x-csrf-token header. The answer must sign the session's pending challenge (spent by this request, accepted or not) from this origin and relying party. A session at the `enrollment` stage becomes `active` under a new id.",
  status: 200,
  idempotent: false,
  merchantScoped: false,
  body: PasskeyRegistrationBody,
  response: DashboardSessionSchema,
  handler: async ({ ctx, request, reply, body }) =>
    send(
      reply,
      await confirm(
        ctx.deps,
        await sessionOf(ctx.deps, request, ['enrollment', 'active']),
        relyingParty(ctx.deps.config, request),
        body,
        request.ip,
        ctx.requestId,
      ),
    ),
});
