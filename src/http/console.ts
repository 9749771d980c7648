import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { acceptsGzip } from './accepts-gzip.ts';
import { notFound } from '../errors/app-error.ts';

/**
 * The dashboard console (docs/dashboard.md, "The console"): a single-page application built by Vite
 * from console/ into dist/console/ (npm run build:console; npm start builds it when stale), served
 * here at /dashboard/. It is a client of the public API like any other: this module only sends its
 * files.
 *
 * - `/dashboard/assets/*`: the hashed bundles, cached for a year (`immutable`): a new build has new names.
 * - `/dashboard/` and every other `/dashboard/...` path (the console's own routes, such as
 *   /dashboard/transactions/ID, opened directly or reloaded): index.html, `no-cache`, so a new build
 *   is picked up at the next load. `/dashboard/api/...` is the sign-in API's and never falls back.
 * - The Content-Security-Policy allows this origin's scripts and style sheets only: no inline script
 *   and no inline style. The chart library (uPlot) positions its elements through `element.style`
 *   (CSSOM), which style-src does not govern; nothing in the console writes a style attribute or
 *   a style element.
 */

/** dist/console beside dist/http (compiled) or src/http (sources): both are two folders below the root. */
export const CONSOLE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'console');

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  // The public API and the sign-in API, on this origin only.
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'content-security-policy': CONSOLE_CSP,
};
const IMMUTABLE = 'public, max-age=31536000, immutable';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

export const MISSING_BUILD_TEXT = `The svc dashboard console has not been built on this server.

Build it with:  npm run build:console
(npm start builds it on its own when console/ changed; the container image ships it built.)
Then reload this page.
`;

interface Asset {
  body: Buffer;
  gzipped: Buffer | null;
  type: string;
}

interface Build {
  indexMtimeMs: number;
  index: Buffer;
  assets: Map<string, Asset>;
}

/** The built console in memory, read again when index.html changes (a new build). */
export class ConsoleFiles {
  private build: Build | null = null;

  constructor(readonly dir: string) {}

  /** The current build, or null when there is none. */
  current(): Build | null {
    const stat = fs.statSync(path.join(this.dir, 'index.html'), { throwIfNoEntry: false });
    if (!stat) return (this.build = null);
    if (this.build?.indexMtimeMs !== stat.mtimeMs) this.build = readBuild(this.dir, stat.mtimeMs);
    return this.build;
  }
}

function readBuild(dir: string, indexMtimeMs: number): Build {
  const assets = new Map<string, Asset>();
  const assetsDir = path.join(dir, 'assets');
  const entries = fs.existsSync(assetsDir) ? fs.readdirSync(assetsDir, { withFileTypes: true }) : [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const body = fs.readFileSync(path.join(assetsDir, entry.name));
    const type = TYPES[path.extname(entry.name)] ?? 'application/octet-stream';
    // Text compresses; the images and fonts are compressed already.
    assets.set(entry.name, {
      body,
      type,
      gzipped: type.includes('charset') || type === 'image/svg+xml' ? gzipSync(body) : null,
    });
  }
  return { indexMtimeMs, index: fs.readFileSync(path.join(dir, 'index.html')), assets };
}

function sendIndex(files: ConsoleFiles, reply: FastifyReply): FastifyReply {
  const build = files.current();
  if (!build) {
    return reply
      .code(503)
      .headers({
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'retry-after': '60',
        ...SECURITY_HEADERS,
      })
      .send(MISSING_BUILD_TEXT);
  }
  return reply
    .headers({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...SECURITY_HEADERS })
    .send(build.index);
}

function sendAsset(
  files: ConsoleFiles,
  request: FastifyRequest<{ Params: { '*': string } }>,
  reply: FastifyReply,
): FastifyReply {
  const asset = files.current()?.assets.get(request.params['*']);
  if (!asset) throw notFound();
  reply.headers({
    'content-type': asset.type,
    'cache-control': IMMUTABLE,
    vary: 'accept-encoding',
    ...SECURITY_HEADERS,
  });
  if (asset.gzipped && acceptsGzip(request)) return reply.header('content-encoding', 'gzip').send(asset.gzipped);
  return reply.send(asset.body);
}

/** Registers /dashboard (a redirect), /dashboard/assets/* and the console's pages under /dashboard/. */
export async function registerConsole(app: FastifyInstance, dir: string = CONSOLE_DIR): Promise<void> {
  const files = new ConsoleFiles(dir);
  const hide = { schema: { hide: true } };
  app.get('/dashboard', hide, async (_request, reply) => reply.redirect('/dashboard/', 308));
  app.get<{ Params: { '*': string } }>('/dashboard/assets/*', hide, async (request, reply) =>
    sendAsset(files, request, reply),
  );
  app.get<{ Params: { '*': string } }>('/dashboard/*', hide, async (request, reply) => {
    // The sign-in API's unknown paths are the API's 404, never the page.
    if (request.params['*'] === 'api' || request.params['*'].startsWith('api/')) throw notFound();
    return sendIndex(files, reply);
  });
}
