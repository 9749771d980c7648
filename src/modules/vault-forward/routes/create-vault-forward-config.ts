import { defineRoute } from '../../../http/define-route.ts';
import { ConfigSchema, CreateConfigBody } from '../vault-forward-configs.schemas.ts';
import { createConfig } from '../vault-forward-configs.service.ts';

export const createVaultForwardConfig = defineRoute({
  operationId: 'createVaultForwardConfig',
  method: 'POST',
  url: '/vault-forward/configs',
  scope: 'vault-forward-configs.write',
  tags: ['vault-forward'],
  summary: 'Configure a vault forwarding target for the merchant account',
  description:
    "One config per definition: a second answers 409 `duplicate_record` with the existing config's id in `resource_id`. " +
    "The `custom` definition takes `hosts` (the merchant's own, exact names or `*.example.com`; in production within VAULT_FORWARD_ALLOWED_HOSTS); the others allow their definition's hosts.",
  status: 201,
  body: CreateConfigBody,
  response: ConfigSchema,
  handler: ({ ctx, body }) => createConfig(ctx, body),
});
