import { defineRoute } from '../../../http/define-route.ts';
import { ConfigsSchema, ListConfigsQuery } from '../vault-forward-configs.schemas.ts';
import { listConfigs } from '../vault-forward-configs.service.ts';

export const listVaultForwardConfigs = defineRoute({
  operationId: 'listVaultForwardConfigs',
  method: 'GET',
  url: '/vault-forward/configs',
  scope: 'vault-forward-configs.read',
  tags: ['vault-forward'],
  summary: 'List the vault forward configs of the merchant account, newest first',
  description:
    "Their hosts together are the merchant account's production allow-list for POST /vault-forward (within VAULT_FORWARD_ALLOWED_HOSTS). Secret authentication fields are not returned.",
  status: 200,
  querystring: ListConfigsQuery,
  response: ConfigsSchema,
  handler: ({ ctx, query }) => listConfigs(ctx, query),
});
