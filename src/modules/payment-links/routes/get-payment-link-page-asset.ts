import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from 'typebox';
import { notFound } from '../../../errors/app-error.ts';
import { defineRoute } from '../../../http/define-route.ts';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'page', 'assets');
/** The page's static files, read once. */
const ASSETS: Record<string, { type: string; body: string }> = {
  'card-checks.js': {
    type: 'text/javascript; charset=utf-8',
    body: fs.readFileSync(path.join(DIR, 'card-checks.js'), 'utf8'),
  },
  'page.js': { type: 'text/javascript; charset=utf-8', body: fs.readFileSync(path.join(DIR, 'page.js'), 'utf8') },
  'page.css': { type: 'text/css; charset=utf-8', body: fs.readFileSync(path.join(DIR, 'page.css'), 'utf8') },
};

export const getPaymentLinkPageAsset = defineRoute({
  operationId: 'getPaymentLinkPageAsset',
  method: 'GET',
  url: '/pay-assets/:file',
  scope: null,
  merchantScoped: false,
  tags: ['payment-links'],
  summary: "The hosted payment page's scripts and style sheet (card-checks.js, page.js, page.css)",
  status: 200,
  params: Type.Object({ file: Type.String({ maxLength: 20 }) }),
  response: Type.Unsafe<string>({
    description: 'JavaScript or CSS',
    content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } },
  }),
  handler: async ({ params, reply }) => {
    const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
    if (!asset) throw notFound('file', params.file);
    reply.headers({
      'content-type': asset.type,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    return asset.body;
  },
});
