import { defineRoute } from '../../../http/define-route.ts';
import { PasskeyListSchema } from '../passkeys.schemas.ts';
import { listPasskeys } from '../passkey-enrollment.service.ts';
import { send, sessionOf } from './session-request.ts';

export const listDashboardPasskeys = defineRoute({
  operationId: 'listDashboardPasskeys',
  method: 'GET',
  url: '/dashboard/api/session/passkeys',
  scope: null,
  tags: ['dashboard'],
  summary: "The signed-in user's passkeys",
  description: 'Names, transports and dates only: a public key never leaves the server.',
  status: 200,
  merchantScoped: false,
  response: PasskeyListSchema,
  handler: async ({ ctx, request, reply }) =>
    send(reply, { body: await listPasskeys(ctx.deps, await sessionOf(ctx.deps, request)), setCookie: null }),
});
