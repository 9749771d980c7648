import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import apiReference from '@scalar/fastify-api-reference';

/**
 * The API explorer at `/docs/explorer/` (docs/api-reference.md): the whole reference on one page
 * with search, by Scalar's renderer, served from node_modules by its Fastify plugin (no CDN: the
 * server may be offline), on a page of our own. The reference at `/docs/` (http/api-reference.ts)
 * needs no script and links here; this page's renderer is a 4.8 MB script (1.4 MB gzipped) that a
 * phone takes seconds to run.
 *
 * The plugin's page would carry an inline script and the renderer's brand; ours loads two scripts
 * from this server (the renderer and `reference.js`, its configuration) and one stylesheet, so the
 * Content-Security-Policy allows scripts from this origin only. Styles also allow 'unsafe-inline':
 * the renderer (Vue) writes style elements and attributes at run time, some without the nonce it
 * could be given; with images, fonts and connections limited to this origin an injected style has
 * nowhere to send anything. The policy has no `upgrade-insecure-requests`: the page must work over
 * plain http on any host name (a sandbox on a LAN address), where upgrading its own requests to
 * https would break every asset.
 */

export const API_EXPLORER_TITLE = 'svc API explorer';
const PREFIX = '/docs/explorer';

/** The renderer's settings: nothing fetched from elsewhere (fonts, telemetry, AI agent, MCP), our title. */
const RENDERER_CONFIGURATION = {
  // Relative to /docs/explorer/, so that a proxy serving the API under a path prefix still finds the document.
  url: '../../openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  documentDownloadType: 'json',
  hideClientButton: true,
  metaData: { title: API_EXPLORER_TITLE },
  defaultOpenFirstTag: false,
  operationTitleSource: 'summary',
};

/** Hides the renderer's own brand (the sidebar's "Powered by" link); fonts are the system's. */
const STYLESHEET = `a[href*="scalar.com"] { display: none !important; }
:root { --scalar-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --scalar-font-code: ui-monospace, Menlo, Consolas, monospace; }
`;

const CONFIGURATION_SCRIPT = `Scalar.createApiReference('#app', ${JSON.stringify(RENDERER_CONFIGURATION)});\n`;

export const API_EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  // The renderer's icons and the document's own images are data: URLs or served here.
  "img-src 'self' data:",
  "font-src 'self' data:",
  // The document (/openapi.json) only: the client button that would send requests is hidden.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${API_EXPLORER_TITLE}</title>
<meta name="description" content="Every operation of the svc payments API: parameters, bodies, responses and scopes">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="./reference.css">
<link rel="preload" href="../../openapi.json" as="fetch" crossorigin="anonymous">
</head>
<body>
<noscript>The svc API explorer needs JavaScript: the <a href="../">API reference</a> does not. The OpenAPI document is at <a href="../../openapi.json">/openapi.json</a>.</noscript>
<div id="app"></div>
<script src="./js/scalar.js"></script>
<script src="./reference.js"></script>
</body>
</html>
`;
}

const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' };

const PAGE = page();

function sendPage(reply: FastifyReply): FastifyReply {
  return reply
    .headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': API_EXPLORER_CSP, ...SECURITY_HEADERS })
    .send(PAGE);
}

const accepts = (request: FastifyRequest, encoding: string) => (request.headers['accept-encoding'] ?? '').split(',').some((part) => part.trim().split(';')[0] === encoding);

/**
 * The renderer's script is 4.8 MB; gzipped once, on its first request, it is 1.4 MB. The response
 * of the plugin's route is replaced by the cached gzip when the browser accepts it.
 */
function compressScript(): (request: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown> {
  let gzipped: Buffer | null = null;
  return async (request, reply, payload) => {
    if (request.url !== `${PREFIX}/js/scalar.js` || typeof payload !== 'string' || reply.statusCode !== 200) return payload;
    reply.header('cache-control', 'public, max-age=3600').header('vary', 'accept-encoding').headers(SECURITY_HEADERS);
    if (!accepts(request, 'gzip')) return payload;
    gzipped ??= gzipSync(payload);
    reply.header('content-encoding', 'gzip').removeHeader('content-length');
    return gzipped;
  };
}

/** Registers `/docs/explorer/` (and without the slash), the renderer's script, its configuration and stylesheet. */
export async function registerApiExplorer(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.addHook('onSend', compressScript());
    await scope.register(apiReference, {
      routePrefix: PREFIX,
      configuration: { url: RENDERER_CONFIGURATION.url },
      logLevel: 'warn',
      hooks: {
        // The plugin's own page (inline script, its brand) is never sent: ours answers instead.
        onRequest: async (request, reply) => {
          if (request.url.split('?')[0] === `${PREFIX}/`) return sendPage(reply);
        },
      },
    });
    const hide = { schema: { hide: true } };
    scope.get(`${PREFIX}/reference.js`, hide, async (_request, reply) =>
      reply.headers({ 'content-type': 'application/javascript; charset=utf-8', 'cache-control': 'no-cache', ...SECURITY_HEADERS }).send(CONFIGURATION_SCRIPT));
    scope.get(`${PREFIX}/reference.css`, hide, async (_request, reply) =>
      reply.headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache', ...SECURITY_HEADERS }).send(STYLESHEET));
  });
}
