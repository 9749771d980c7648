import { defineRoute } from '../../../http/define-route.ts';
import { DashboardSessionSchema } from '../dashboard-sessions.schemas.ts';
import { PasskeySignInBody } from '../passkeys.schemas.ts';
import { verifyPasskeySignIn } from '../passkey-sign-in.service.ts';
import { relyingParty } from '../webauthn.ts';
import { presentedToken, send } from './session-request.ts';

export const verifySignInPasskey = defineRoute({
  operationId: 'verifySignInPasskey',
  method: 'POST',
  url: '/dashboard/api/session/passkey',
  scope: null,
  tags: ['dashboard'],
  summary: "Complete a sign-in with a passkey: the authenticator's answer to the sign-in options",
  description:
    "For a session at the `second-factor` stage. The answer must sign the session's pending challenge (spent by this request, accepted or not) from this origin, with a signature counter above the last one; a refusal counts toward the lockout as a wrong code does. The session id changes again.",
  status: 200,
  idempotent: false,
  merchantScoped: false,
  body: PasskeySignInBody,
  response: DashboardSessionSchema,
  handler: async ({ ctx, request, reply, body }) =>
    send(
      reply,
      await verifyPasskeySignIn(ctx.deps, {
        token: presentedToken(ctx.deps, request),
        body,
        rp: relyingParty(ctx.deps.config, request),
        clientAddress: request.ip,
        requestId: ctx.requestId,
      }),
    ),
});
