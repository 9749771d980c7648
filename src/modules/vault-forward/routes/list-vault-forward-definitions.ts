import { defineRoute } from '../../../http/define-route.ts';
import { DefinitionsSchema } from '../vault-forward-configs.schemas.ts';
import { listDefinitions } from '../vault-forward-configs.service.ts';

export const listVaultForwardDefinitions = defineRoute({
  operationId: 'listVaultForwardDefinitions',
  method: 'GET',
  url: '/vault-forward/definitions',
  scope: 'vault-forward-definitions.read',
  merchantScoped: false,
  tags: ['vault-forward'],
  summary: 'List the vault forwarding target definitions and the authentication methods they take',
  description:
    "Instance-wide: the same catalogue for every merchant account. A definition names a target and the hosts a config of it allows; `custom` has none of its own (its config lists the merchant's hosts). " +
    'Each authentication kind lists its fields; `secret` ones are stored encrypted and never returned.',
  status: 200,
  response: DefinitionsSchema,
  handler: async () => listDefinitions(),
});
