import { defineRoute } from '../../../http/define-route.ts';
import { ApiKeyPairsSchema, ListApiKeyPairsQuery } from '../api-key-pairs.schemas.ts';
import { listApiKeyPairs as list } from '../api-key-pairs.service.ts';

export const listApiKeyPairs = defineRoute({
  operationId: 'listApiKeyPairs',
  method: 'GET',
  url: '/api-key-pairs',
  scope: 'api-key-pairs.read',
  tags: ['api-key-pairs'],
  summary: 'List API key pairs, newest first',
  description:
    'Active and revoked pairs; deleted pairs are not listed. A credential limited to one merchant account sees the pairs limited to that account.',
  status: 200,
  merchantScoped: false,
  querystring: ListApiKeyPairsQuery,
  response: ApiKeyPairsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
