import { defineRoute } from '../../../http/define-route.ts';
import { AuthenticationParams, AuthenticationSchema } from '../vault-forward-configs.schemas.ts';
import { getAuthentication } from '../vault-forward-authentications.service.ts';

export const getVaultForwardAuthentication = defineRoute({
  operationId: 'getVaultForwardAuthentication',
  method: 'GET',
  url: '/vault-forward/configs/:config_id/authentications/:authentication_id',
  scope: 'vault-forward-authentications.read',
  tags: ['vault-forward'],
  summary: 'Get an authentication method of a vault forward config',
  description: 'Fields marked as secret are not returned.',
  status: 200,
  params: AuthenticationParams,
  response: AuthenticationSchema,
  handler: ({ ctx, params }) => getAuthentication(ctx, params.config_id, params.authentication_id),
});
