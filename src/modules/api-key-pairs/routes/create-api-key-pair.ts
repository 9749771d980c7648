import { defineRoute } from '../../../http/define-route.ts';
import { ApiKeyPairSchema, CreateApiKeyPairBody } from '../api-key-pairs.schemas.ts';
import { createApiKeyPair as create } from '../api-key-pairs.service.ts';

export const createApiKeyPair = defineRoute({
  operationId: 'createApiKeyPair',
  method: 'POST',
  url: '/api-key-pairs',
  scope: 'api-key-pairs.write',
  tags: ['api-key-pairs'],
  summary: 'Create an API key pair',
  description:
    'Without public_key the server generates an ES512 key pair and returns its private key (PKCS#8 PEM) in private_key, ' +
    'in this response only: it is never stored. With public_key (PEM SPKI or JWK, EC P-521 only) the key is registered and private_key is null. ' +
    'A key that is registered already answers 409. Sign tokens with alg ES512 and kid = the returned kid. ' +
    'This operation takes no idempotency-key: a stored response would store the private key.',
  status: 201,
  merchantScoped: false,
  // This response returns a private key once. Storing it for replays, even encrypted, would be a copy of a secret.
  idempotent: false,
  body: CreateApiKeyPairBody,
  response: ApiKeyPairSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
