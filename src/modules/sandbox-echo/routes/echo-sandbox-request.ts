import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { AppError } from '../../../errors/app-error.ts';

/** What the echo answers: the request as this server received it. */
export const SandboxEchoSchema = Type.Object(
  {
    method: Type.String(),
    path: Type.String({ description: 'The path and query string' }),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'The request headers, lower-cased; repeated ones joined by ", "',
    }),
    body: Type.Unknown({ description: 'The JSON body as received (null without one)' }),
  },
  { additionalProperties: false },
);

/**
 * A target that works offline (issue 51): POST anything JSON and it comes back. A vault forward to
 * `PUBLIC_URL/sandbox/echo` shows the card number put into the body, then masked in the answer.
 * Sandbox only (404 in production, like the other sandbox pages); no token: the caller is the
 * server itself, or a developer's curl. Writes nothing, reads nothing; its answer is JSON that no
 * browser renders (`nosniff`, `default-src 'none'`), and holds only what the request carried.
 */
export const echoSandboxRequest = defineRoute({
  operationId: 'echoSandboxRequest',
  method: 'POST',
  url: '/sandbox/echo',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['sandbox'],
  summary:
    'Echoes the request: method, path, headers and JSON body (sandbox; no token: an offline vault forward target)',
  status: 200,
  body: Type.Unknown(),
  response: SandboxEchoSchema,
  handler: async ({ ctx, request, reply }) => {
    if (ctx.deps.config.environment === 'production')
      throw new AppError('not_found', 'The sandbox echo endpoint exists in the sandbox environment only');
    reply.headers({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
    });
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : String(value ?? ''),
      ]),
    );
    return { method: request.method, path: request.url, headers, body: request.body ?? null };
  },
});
