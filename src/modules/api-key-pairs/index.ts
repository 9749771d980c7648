import type { FastifyInstance } from 'fastify';
import { createApiKeyPair } from './routes/create-api-key-pair.ts';
import { deleteApiKeyPair } from './routes/delete-api-key-pair.ts';
import { getApiKeyPair } from './routes/get-api-key-pair.ts';
import { listApiKeyPairs } from './routes/list-api-key-pairs.ts';
import { updateApiKeyPair } from './routes/update-api-key-pair.ts';

export const apiKeyPairRoutes = [createApiKeyPair, listApiKeyPairs, getApiKeyPair, updateApiKeyPair, deleteApiKeyPair];

export async function apiKeyPairs(app: FastifyInstance): Promise<void> {
  for (const route of apiKeyPairRoutes) app.route(route);
}
