import { defineRoute } from '../../../http/define-route.ts';
import { PasskeySignInOptionsSchema } from '../passkeys.schemas.ts';
import { startPasskeySignIn as start } from '../passkey-sign-in.service.ts';
import { relyingParty } from '../webauthn.ts';
import { presentedToken, send } from './session-request.ts';

export const startPasskeySignIn = defineRoute({
  operationId: 'startPasskeySignIn',
  method: 'POST',
  url: '/dashboard/api/session/passkey-challenge',
  scope: null,
  tags: ['dashboard'],
  summary: "Options for navigator.credentials.get() naming the user's passkeys, to complete a sign-in",
  description:
    'For a session at the `second-factor` stage whose user has a passkey. The challenge is kept on the session, valid once for 5 minutes; a newer one replaces it.',
  status: 200,
  idempotent: false,
  merchantScoped: false,
  response: PasskeySignInOptionsSchema,
  handler: async ({ ctx, request, reply }) =>
    send(reply, {
      body: await start(ctx.deps, presentedToken(ctx.deps, request), relyingParty(ctx.deps.config, request)),
      setCookie: null,
    }),
});
