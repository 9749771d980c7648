import { defineRoute } from '../../../http/define-route.ts';
import {
  AuthenticationParams,
  AuthenticationSchema,
  UpdateAuthenticationBody,
} from '../vault-forward-configs.schemas.ts';
import { updateAuthentication } from '../vault-forward-authentications.service.ts';

export const updateVaultForwardAuthentication = defineRoute({
  operationId: 'updateVaultForwardAuthentication',
  method: 'PUT',
  url: '/vault-forward/configs/:config_id/authentications/:authentication_id',
  scope: 'vault-forward-authentications.write',
  tags: ['vault-forward'],
  summary: 'Change the display name or fields of an authentication method',
  description:
    'Fields are merged key by key into the stored ones; `value: ""` unsets an optional field. The result is checked as a whole (e.g. a new certificate must match the stored key). The kind cannot change.',
  status: 200,
  params: AuthenticationParams,
  body: UpdateAuthenticationBody,
  response: AuthenticationSchema,
  handler: ({ ctx, params, body }) => updateAuthentication(ctx, params.config_id, params.authentication_id, body),
});
