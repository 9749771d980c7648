import { defineRoute } from '../../../http/define-route.ts';
import { PasskeyParams } from '../passkeys.schemas.ts';
import { deletePasskey } from '../passkey-enrollment.service.ts';
import { send, sessionOf } from './session-request.ts';

export const deleteDashboardPasskey = defineRoute({
  operationId: 'deleteDashboardPasskey',
  method: 'DELETE',
  url: '/dashboard/api/session/passkeys/:passkey_id',
  scope: null,
  tags: ['dashboard'],
  summary: "Remove one of the signed-in user's passkeys",
  description:
    "Needs the x-csrf-token header. Another user's passkey is not found. An administrator's last second factor cannot be removed (400).",
  status: 204,
  merchantScoped: false,
  params: PasskeyParams,
  response: null,
  handler: async ({ ctx, request, reply, params }) => {
    send(reply, {
      body: await deletePasskey(ctx.deps, await sessionOf(ctx.deps, request), params.passkey_id, ctx.requestId),
      setCookie: null,
    });
  },
});
