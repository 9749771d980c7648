import { defineRoute } from '../../../http/define-route.ts';
import { ApiKeyPairParams, ApiKeyPairSchema, UpdateApiKeyPairBody } from '../api-key-pairs.schemas.ts';
import { updateApiKeyPair as update } from '../api-key-pairs.service.ts';

export const updateApiKeyPair = defineRoute({
  operationId: 'updateApiKeyPair',
  method: 'PUT',
  url: '/api-key-pairs/:api_key_pair_id',
  scope: 'api-key-pairs.write',
  tags: ['api-key-pairs'],
  summary: 'Rename, revoke or re-enable an API key pair',
  description:
    'Partial update: fields that are not sent keep their value. active: false revokes the pair: its tokens are refused at once by this ' +
    'server process and within 5 seconds by every other. active: true enables a revoked pair again.',
  status: 200,
  merchantScoped: false,
  params: ApiKeyPairParams,
  body: UpdateApiKeyPairBody,
  response: ApiKeyPairSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.api_key_pair_id, body),
});
