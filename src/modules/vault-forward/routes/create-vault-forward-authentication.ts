import { defineRoute } from '../../../http/define-route.ts';
import { AuthenticationSchema, ConfigParams, CreateAuthenticationBody } from '../vault-forward-configs.schemas.ts';
import { createAuthentication } from '../vault-forward-authentications.service.ts';

export const createVaultForwardAuthentication = defineRoute({
  operationId: 'createVaultForwardAuthentication',
  method: 'POST',
  url: '/vault-forward/configs/:config_id/authentications',
  scope: 'vault-forward-authentications.write',
  tags: ['vault-forward'],
  summary: 'Add an authentication method to a vault forward config',
  description:
    'Kinds: `signature` (HMAC-SHA256 request signing), `mtls` (client certificate and key) and `mle` (the body encrypted as a JWE for the target). ' +
    'The fields are checked (a certificate that matches its key, a safe algorithm, ...) and a 400 names each field at fault. Secret fields are stored encrypted and never returned. ' +
    'Select the method for a forward with `x-vault-forward-authentications`.',
  status: 201,
  params: ConfigParams,
  body: CreateAuthenticationBody,
  response: AuthenticationSchema,
  handler: ({ ctx, params, body }) => createAuthentication(ctx, params.config_id, body),
});
