import type { FastifyInstance } from 'fastify';
import { forwardVaultRequest } from './routes/forward-vault-request.ts';

/** Vault forwarding: stored card data sent to a third party without passing the merchant's servers. */
export async function vaultForward(app: FastifyInstance): Promise<void> {
  app.route(forwardVaultRequest);
}
