import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSessionStage } from '../../../db/schema-dashboard.ts';
import type { Deps } from '../../../context.ts';
import { requireSession, type LiveSession, type SessionAnswer } from '../dashboard-sessions.service.ts';
import { CSRF_HEADER, readSessionCookie } from '../session-cookie.ts';

/** The session token of the request's cookie, or null. */
export const presentedToken = (deps: Deps, request: FastifyRequest): string | null =>
  readSessionCookie(request.headers.cookie, deps.config);

/** The request's live session in one of `stages`; CSRF-checked for a method that changes something. */
export function sessionOf(
  deps: Deps,
  request: FastifyRequest,
  stages: readonly DashboardSessionStage[] = ['active'],
): Promise<LiveSession> {
  return requireSession(deps, presentedToken(deps, request), request.method, request.headers[CSRF_HEADER], stages);
}

/** Sends a session answer: its cookie, and no caching anywhere (the body holds the CSRF token). */
export function send<T>(reply: FastifyReply, answer: SessionAnswer<T>): T {
  if (answer.setCookie) reply.header('set-cookie', answer.setCookie);
  reply.header('cache-control', 'no-store');
  return answer.body;
}
