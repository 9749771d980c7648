import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../context.ts';
import { AppError } from '../../../errors/app-error.ts';
import { readSessionCookie } from '../../dashboard-sessions/session-cookie.ts';
import { finishSso, SsoRefusal, ssoOf, startSso, type BrowserRedirect } from '../dashboard-sso.service.ts';
import { clearedStateCookie, readStateCookie } from '../sso-cookie.ts';

/**
 * The two addresses of single sign-on the browser navigates to (not API operations: no JSON, no
 * token, out of the OpenAPI document, listed in docs/security.md). A refusal sends the browser
 * back to the sign-in page with `?sso_error=<code>`; the reason is in the log and, for a known
 * user, in the audit log.
 */
function redirect(reply: FastifyReply, to: BrowserRedirect): FastifyReply {
  reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
  if (to.cookies.length > 0) reply.header('set-cookie', to.cookies);
  return reply.redirect(to.location, 303);
}

function refused(deps: Deps, request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const code = error instanceof SsoRefusal ? error.code : 'provider';
  if (!(error instanceof SsoRefusal) && !(error instanceof AppError)) throw error;
  request.log.warn({ sso_error: code, reason: error.message }, 'single sign-on refused');
  return redirect(reply, { location: `/dashboard/?sso_error=${code}`, cookies: [clearedStateCookie(deps.config)] });
}

export function registerSsoBrowserRoutes(app: FastifyInstance): void {
  const hide = { schema: { hide: true } };
  app.get<{ Querystring: { return_to?: string } }>('/dashboard/api/sso/start', hide, async (request, reply) => {
    const deps = request.ctx.deps;
    ssoOf(deps); // 404 when single sign-on is off
    const returnTo = typeof request.query.return_to === 'string' ? request.query.return_to : undefined;
    try {
      return redirect(reply, await startSso(deps, returnTo));
    } catch (error) {
      return refused(deps, request, reply, error);
    }
  });
  app.get<{ Querystring: { state?: string } }>('/dashboard/api/sso/callback', hide, async (request, reply) => {
    const deps = request.ctx.deps;
    ssoOf(deps);
    const raw = request.raw.url ?? '';
    const query = raw.includes('?') ? raw.slice(raw.indexOf('?') + 1) : '';
    try {
      return redirect(
        reply,
        await finishSso(deps, {
          query,
          state: typeof request.query.state === 'string' ? request.query.state : undefined,
          cookieState: readStateCookie(request.headers.cookie, deps.config),
          presented: readSessionCookie(request.headers.cookie, deps.config),
          clientAddress: request.ip,
          requestId: request.id,
        }),
      );
    } catch (error) {
      return refused(deps, request, reply, error);
    }
  });
}
