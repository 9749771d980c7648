import { defineRoute } from '../../../http/define-route.ts';
import { ApiKeyPairParams, ApiKeyPairSchema } from '../api-key-pairs.schemas.ts';
import { getApiKeyPair as get } from '../api-key-pairs.service.ts';

export const getApiKeyPair = defineRoute({
  operationId: 'getApiKeyPair',
  method: 'GET',
  url: '/api-key-pairs/:api_key_pair_id',
  scope: 'api-key-pairs.read',
  tags: ['api-key-pairs'],
  summary: 'Read an API key pair',
  description:
    'By id or by kid (the JWK thumbprint in the header of its tokens). The private key is never returned here.',
  status: 200,
  merchantScoped: false,
  params: ApiKeyPairParams,
  response: ApiKeyPairSchema,
  handler: ({ ctx, params }) => get(ctx, params.api_key_pair_id),
});
