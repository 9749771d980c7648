import type { FastifyInstance } from 'fastify';
import { echoSandboxRequest } from './routes/echo-sandbox-request.ts';

/** The sandbox echo endpoint (sandbox only): an offline target for vault forwarding and webhook tries. */
export async function sandboxEcho(app: FastifyInstance): Promise<void> {
  app.route(echoSandboxRequest);
}
