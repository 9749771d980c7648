import type { FastifyRequest } from 'fastify';

/** Whether the client lists gzip among the encodings it accepts (any quality: none of our clients send q=0). */
export const acceptsGzip = (request: FastifyRequest): boolean =>
  (request.headers['accept-encoding'] ?? '').split(',').some((part) => part.trim().split(';')[0] === 'gzip');
