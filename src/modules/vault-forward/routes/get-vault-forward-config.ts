import { defineRoute } from '../../../http/define-route.ts';
import { ConfigParams, ConfigSchema } from '../vault-forward-configs.schemas.ts';
import { getConfig } from '../vault-forward-configs.service.ts';

export const getVaultForwardConfig = defineRoute({
  operationId: 'getVaultForwardConfig',
  method: 'GET',
  url: '/vault-forward/configs/:config_id',
  scope: 'vault-forward-configs.read',
  tags: ['vault-forward'],
  summary: 'Get a vault forward config with its authentication methods',
  description: 'Secret authentication fields are not returned.',
  status: 200,
  params: ConfigParams,
  response: ConfigSchema,
  handler: ({ ctx, params }) => getConfig(ctx, params.config_id),
});
