import { defineRoute } from '../../../http/define-route.ts';
import { ApiKeyPairParams } from '../api-key-pairs.schemas.ts';
import { deleteApiKeyPair as remove } from '../api-key-pairs.service.ts';

export const deleteApiKeyPair = defineRoute({
  operationId: 'deleteApiKeyPair',
  method: 'DELETE',
  url: '/api-key-pairs/:api_key_pair_id',
  scope: 'api-key-pairs.write',
  tags: ['api-key-pairs'],
  summary: 'Delete an API key pair',
  description:
    'Revokes the pair for good: its tokens are refused (at once here, within 5 seconds on every other process), it is no longer listed ' +
    'or readable (404), and its public key cannot be registered again.',
  status: 204,
  merchantScoped: false,
  params: ApiKeyPairParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.api_key_pair_id),
});
