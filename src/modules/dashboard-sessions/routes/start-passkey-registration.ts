import { defineRoute } from '../../../http/define-route.ts';
import { PasskeyRegistrationOptionsSchema } from '../passkeys.schemas.ts';
import { startPasskeyRegistration as start } from '../passkey-enrollment.service.ts';
import { relyingParty } from '../webauthn.ts';
import { send, sessionOf } from './session-request.ts';

export const startPasskeyRegistration = defineRoute({
  operationId: 'startPasskeyRegistration',
  method: 'POST',
  url: '/dashboard/api/session/passkey-registration',
  scope: null,
  tags: ['dashboard'],
  summary: 'Start registering a passkey (WebAuthn): options for navigator.credentials.create()',
  description:
    'Needs the x-csrf-token header; a session at the `enrollment` or `active` stage. The challenge is kept on the session, valid once for 5 minutes; a newer one replaces it.',
  status: 200,
  idempotent: false,
  merchantScoped: false,
  response: PasskeyRegistrationOptionsSchema,
  handler: async ({ ctx, request, reply }) =>
    send(reply, {
      body: await start(
        ctx.deps,
        await sessionOf(ctx.deps, request, ['enrollment', 'active']),
        relyingParty(ctx.deps.config, request),
      ),
      setCookie: null,
    }),
});
