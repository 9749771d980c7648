import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { AppError, notFound } from '../errors/app-error.ts';

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * Tells an unknown path (404) from a known path called with the wrong method (405). Fastify sends
 * both to the not-found handler, so a second router, fed every registered route, answers
 * "does this path exist under another method?".
 */
export function installNotFound(app: FastifyInstance): void {
  const router = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      try {
        router.on(method.toUpperCase() as HTTPMethod, route.url, () => undefined);
      } catch {
        // The same method and path registered twice (HEAD for GET routes): already known.
      }
    }
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter(
      (method) =>
        method !== request.method && router.find(method, path) !== null && router.find(method, path) !== undefined,
    );
    if (allowed.length > 0) {
      const error = new AppError('method_not_allowed', 'Method Not Allowed', {
        headers: { allow: allowed.join(', ') },
      });
      throw error;
    }
    throw notFound();
  });
}
