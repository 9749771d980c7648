import { defineRoute } from '../../../http/define-route.ts';
import { AuthenticationParams } from '../vault-forward-configs.schemas.ts';
import { deleteAuthentication } from '../vault-forward-authentications.service.ts';

export const deleteVaultForwardAuthentication = defineRoute({
  operationId: 'deleteVaultForwardAuthentication',
  method: 'DELETE',
  url: '/vault-forward/configs/:config_id/authentications/:authentication_id',
  scope: 'vault-forward-authentications.write',
  tags: ['vault-forward'],
  summary: 'Delete an authentication method',
  description:
    'Answers 204. The method and its encrypted secrets are deleted; a forward naming it afterwards is refused (400).',
  status: 204,
  params: AuthenticationParams,
  response: null,
  handler: ({ ctx, params }) => deleteAuthentication(ctx, params.config_id, params.authentication_id),
});
