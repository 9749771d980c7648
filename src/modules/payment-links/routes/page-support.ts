import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RequestContext } from '../../../context.ts';
import { notFound } from '../../../errors/app-error.ts';
import { renderError } from '../../../http/error-handler.ts';
import { failedLookups } from '../../../http/failed-lookups.ts';
import { translator } from '../page/i18n.ts';
import { renderPage } from '../page/page-render.ts';
import { checkOrigin, checkPageToken, newNonce, pageHeaders } from '../page/page-security.ts';
import { linkBucket, pageLimits } from '../page/page-limits.ts';
import type { RenderedView } from '../page/page-view.service.ts';

/** The hosted page's path parameters: the merchant account names the row, the random link id is the secret. */
export const PageParams = Type.Object({
  merchant_account_id: Type.String({ minLength: 1, maxLength: 255 }),
  payment_link_id: Type.String({ format: 'uuid', description: 'ID of the payment link' }),
});

/** The header the page's script sends its page token in (CSRF). */
export const TOKEN_HEADER = 'x-payment-link-token';
export const TokenHeaders = { [TOKEN_HEADER]: Type.Optional(Type.String({ maxLength: 200 })) };

/**
 * What every call of the page's script passes first (docs/payment-links.md, "Security"): a browser
 * Origin of PUBLIC_URL, the page token of this link, and the link's per-minute budget.
 */
export async function guardPageCall(
  ctx: RequestContext,
  params: { merchant_account_id: string; payment_link_id: string },
  headers: FastifyRequest['headers'],
): Promise<void> {
  checkOrigin(ctx.deps.config, headers.origin);
  checkPageToken(ctx.deps, params.merchant_account_id, params.payment_link_id, headers[TOKEN_HEADER]);
  await pageLimits(ctx.deps).calls.hit(linkBucket(params.merchant_account_id, params.payment_link_id));
}

export const Html = Type.Unsafe<string>({
  description: 'An HTML page',
  content: { 'text/html': { schema: { type: 'string' } } },
});

/** The page's requests carry no token: the merchant account of the path is the one they act on. */
export const pageContext = (ctx: RequestContext, merchantAccountId: string): RequestContext => ({
  ...ctx,
  merchantAccountId,
});

export const pagePath = (params: { merchant_account_id: string; payment_link_id: string }) =>
  `/pay/${encodeURIComponent(params.merchant_account_id)}/${params.payment_link_id}`;

/** Sends a page view with the page's security headers; an unknown link is a miss of the client address (429 once it is out of misses). */
export async function sendView(
  ctx: RequestContext,
  request: FastifyRequest,
  reply: FastifyReply,
  rendered: RenderedView,
): Promise<string> {
  if (rendered.status === 404) {
    await failedLookups(ctx.deps).miss(request.ip);
    // htmlErrors renders the "not found" page.
    throw notFound('payment link');
  }
  // Only a production page offering Google Pay loads Google's pay.js (the sandbox simulates the wallet).
  const googlePay =
    rendered.view.walletMode === 'production' && rendered.view.wallets.some((w) => w.method === 'googlepay');
  reply.headers(pageHeaders(ctx.deps.config, rendered.view.nonce, { googlePay }));
  if (rendered.refreshTo) reply.header('refresh', `0;url=${rendered.refreshTo}`);
  return renderPage(rendered.view);
}

/** The page's GET routes answer errors with a page a person can read, not a JSON body. */
export function htmlErrors(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const rendered = renderError(error, request.ctx.deps.config.bodyLimit);
  if (rendered.unexpected) request.log.error({ err: error }, 'request failed unexpectedly');
  const nonce = newNonce();
  const state = rendered.status === 404 ? 'not_found' : 'error';
  const html = renderPage({
    state,
    tr: translator('en'),
    nonce,
    link: null,
    base: '',
    token: '',
    storedCards: [],
    redirectMethods: [],
    wallets: [],
    walletMode: request.ctx.deps.config.environment,
    notice: null,
    redirectTo: null,
  });
  return reply
    .code(rendered.status)
    .headers({ ...rendered.headers, ...pageHeaders(request.ctx.deps.config, nonce) })
    .send(html);
}
