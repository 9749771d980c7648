import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip } from './accepts-gzip.ts';
import {
  indexPage,
  layout,
  operationPage,
  operationsOf,
  schemaPage,
  schemasPage,
  type Document,
} from './reference-pages.ts';
import { REFERENCE_STYLESHEET } from './reference-style.ts';

/**
 * The API reference for people at `/docs/` (docs/api-reference.md): pages written on this server
 * from the OpenAPI document, with no script. The index lists every operation by tag; each
 * operation and each named schema has a page of its own, so a phone receives a few kilobytes per
 * page however large the API grows, and shows them at once, on any host name, offline too.
 *
 * Pages are written on their first request and kept (the document does not change while the
 * server runs), each with its gzip and an ETag. `/openapi.json` is kept the same way.
 */

export const API_REFERENCE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

interface Kept {
  body: string;
  gzipped: Buffer;
  etag: string;
}

const keep = (body: string): Kept => ({
  body,
  gzipped: gzipSync(body),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
});

/** Sends a kept body: 304 when the browser has it, gzipped when it accepts gzip. */
function sendKept(request: FastifyRequest, reply: FastifyReply, kept: Kept, type: string): FastifyReply {
  reply.headers({
    'content-type': type,
    'cache-control': 'no-cache',
    etag: kept.etag,
    vary: 'accept-encoding',
    ...SECURITY_HEADERS,
  });
  if (request.headers['if-none-match'] === kept.etag) return reply.code(304).send();
  if (!acceptsGzip(request)) return reply.send(kept.body);
  return reply.header('content-encoding', 'gzip').send(kept.gzipped);
}

/** Registers `/docs/` and its pages, and `/openapi.json`. */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  const kept = new Map<string, Kept>();
  const documentOf = () => app.swagger() as unknown as Document;
  /** The kept body for `key`, written by `write` on first use; null (and nothing kept) when `write` finds nothing. */
  const lookup = (key: string, write: () => string | null): Kept | null => {
    const known = kept.get(key);
    if (known) return known;
    const body = write();
    if (body === null) return null;
    const fresh = keep(body);
    kept.set(key, fresh);
    return fresh;
  };
  const page = (request: FastifyRequest, reply: FastifyReply, found: Kept | null) => {
    reply.header('content-security-policy', API_REFERENCE_CSP);
    if (found) return sendKept(request, reply, found, 'text/html; charset=utf-8');
    return reply
      .code(404)
      .headers({ 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS })
      .send(layout('Not found', '../', '<h1>Not found</h1><p>No such page in this reference.</p>'));
  };
  const hide = { schema: { hide: true } };

  app.get('/openapi.json', hide, async (request, reply) =>
    sendKept(
      request,
      reply,
      lookup('openapi.json', () => JSON.stringify(app.swagger()))!,
      'application/json; charset=utf-8',
    ),
  );
  app.get('/docs', hide, async (_request, reply) => reply.redirect('/docs/', 301));
  app.get('/docs/', hide, async (request, reply) =>
    page(
      request,
      reply,
      lookup('index', () => indexPage(documentOf())),
    ),
  );
  app.get('/docs/operations/:operationId', hide, async (request, reply) => {
    const { operationId } = request.params as { operationId: string };
    return page(
      request,
      reply,
      lookup(`operation:${operationId}`, () => {
        const doc = documentOf();
        const located = operationsOf(doc).find(({ operation }) => operation.operationId === operationId);
        return located ? operationPage(doc, located) : null;
      }),
    );
  });
  app.get('/docs/schemas/', hide, async (request, reply) =>
    page(
      request,
      reply,
      lookup('schemas', () => schemasPage(documentOf())),
    ),
  );
  app.get('/docs/schemas/:name', hide, async (request, reply) => {
    const { name } = request.params as { name: string };
    return page(
      request,
      reply,
      lookup(`schema:${name}`, () => {
        const doc = documentOf();
        const schema = Object.hasOwn(doc.components?.schemas ?? {}, name) ? doc.components!.schemas![name]! : null;
        return schema ? schemaPage(doc, name, schema) : null;
      }),
    );
  });
  app.get('/docs/reference.css', hide, async (request, reply) =>
    sendKept(request, reply, lookup('css', () => REFERENCE_STYLESHEET)!, 'text/css; charset=utf-8'),
  );
}
