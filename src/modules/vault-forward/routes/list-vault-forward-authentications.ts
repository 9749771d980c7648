import { defineRoute } from '../../../http/define-route.ts';
import { AuthenticationsSchema, ConfigParams } from '../vault-forward-configs.schemas.ts';
import { listAuthentications } from '../vault-forward-authentications.service.ts';

export const listVaultForwardAuthentications = defineRoute({
  operationId: 'listVaultForwardAuthentications',
  method: 'GET',
  url: '/vault-forward/configs/:config_id/authentications',
  scope: 'vault-forward-authentications.read',
  tags: ['vault-forward'],
  summary: 'List the authentication methods of a vault forward config, oldest first',
  description: 'Fields marked as secret are not returned.',
  status: 200,
  params: ConfigParams,
  response: AuthenticationsSchema,
  handler: ({ ctx, params }) => listAuthentications(ctx, params.config_id),
});
