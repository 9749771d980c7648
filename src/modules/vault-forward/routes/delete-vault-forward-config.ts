import { defineRoute } from '../../../http/define-route.ts';
import { ConfigParams } from '../vault-forward-configs.schemas.ts';
import { deleteConfig } from '../vault-forward-configs.service.ts';

export const deleteVaultForwardConfig = defineRoute({
  operationId: 'deleteVaultForwardConfig',
  method: 'DELETE',
  url: '/vault-forward/configs/:config_id',
  scope: 'vault-forward-configs.write',
  tags: ['vault-forward'],
  summary: 'Delete a vault forward config and its authentication methods',
  description:
    "Answers 204. Its hosts leave the merchant account's allow-list and its authentication methods (with their encrypted secrets) are deleted with it.",
  status: 204,
  params: ConfigParams,
  response: null,
  handler: ({ ctx, params }) => deleteConfig(ctx, params.config_id),
});
