import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Config } from '../config.ts';
import { registerApiReference } from './api-reference.ts';
import { hoistTitledSchemas } from './openapi-components.ts';
import { describeResponses, sharedErrorResponses } from './response-descriptions.ts';
import { ALL_SCOPES } from './scopes.ts';

export const API_VERSION = '1.0.0';

interface OperationObject {
  operationId?: string;
  description?: string;
  security?: unknown[];
  responses?: Record<string, { description?: string }>;
  [key: string]: unknown;
}

/**
 * The OpenAPI document is generated from the route schemas (docs/api-reference.md). Each operation
 * also carries its required scope (`x-required-scopes`, and a line in its description), every
 * response a description of its own, and the document lists every scope with its operations under
 * `x-scopes`. Its one server is this server's public URL: the first server's description names the
 * environment (`svc trigger` reads it).
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const scopes = new Map<string, string | null>();
  app.addHook('onRoute', (route) => {
    const operationId = route.config?.operationId;
    if (operationId) scopes.set(operationId, route.config?.scope ?? null);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Payments platform API',
        version: API_VERSION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description:
          'Payment orchestration API. Authenticate with `Authorization: Bearer <JWT>` signed with ES512 by an API key pair; ' +
          'each operation names the scope it requires. Errors use the `Error` body; request validation failures answer 422 with `HTTPValidationError`.',
      },
      servers: [{ url: config.publicUrl, description: `this server (${config.environment})` }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        responses: sharedErrorResponses(),
      },
      security: [{ bearerAuth: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documentObject) => {
      const document = (documentObject as unknown as { openapiObject: unknown }).openapiObject as {
        paths?: Record<string, Record<string, OperationObject>>;
        [key: string]: unknown;
      };
      const byScope: Record<string, string[]> = {};
      for (const methods of Object.values(document.paths ?? {})) {
        for (const operation of Object.values(methods)) {
          describeResponses(operation.responses);
          const id = operation.operationId;
          if (!id || !scopes.has(id)) continue;
          const scope = scopes.get(id);
          if (scope) {
            operation['x-required-scopes'] = [scope];
            operation.description = `${operation.description ? `${operation.description}\n\n` : ''}Requires scope \`${scope}\`.`;
            (byScope[scope] ??= []).push(id);
          }
        }
      }
      document['x-scopes'] = byScope;
      document['x-known-scopes'] = ALL_SCOPES;
      return hoistTitledSchemas(document) as never;
    },
  });
  // `/openapi.json` and `/docs`: the document kept once, serialized and gzipped (http/api-reference.ts).
  await registerApiReference(app);
}
