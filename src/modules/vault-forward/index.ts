import type { FastifyInstance } from 'fastify';
import { createVaultForwardAuthentication } from './routes/create-vault-forward-authentication.ts';
import { createVaultForwardConfig } from './routes/create-vault-forward-config.ts';
import { deleteVaultForwardAuthentication } from './routes/delete-vault-forward-authentication.ts';
import { deleteVaultForwardConfig } from './routes/delete-vault-forward-config.ts';
import { forwardVaultRequest } from './routes/forward-vault-request.ts';
import { getVaultForwardAuthentication } from './routes/get-vault-forward-authentication.ts';
import { getVaultForwardConfig } from './routes/get-vault-forward-config.ts';
import { listVaultForwardAuthentications } from './routes/list-vault-forward-authentications.ts';
import { listVaultForwardConfigs } from './routes/list-vault-forward-configs.ts';
import { listVaultForwardDefinitions } from './routes/list-vault-forward-definitions.ts';
import { updateVaultForwardAuthentication } from './routes/update-vault-forward-authentication.ts';

/**
 * Vault forwarding: stored card data sent to a third party without passing the merchant's servers,
 * and its configuration (target definitions, the merchant account's configs and their
 * authentication methods).
 */
export async function vaultForward(app: FastifyInstance): Promise<void> {
  for (const route of [
    forwardVaultRequest,
    listVaultForwardDefinitions,
    listVaultForwardConfigs,
    createVaultForwardConfig,
    getVaultForwardConfig,
    deleteVaultForwardConfig,
    listVaultForwardAuthentications,
    createVaultForwardAuthentication,
    getVaultForwardAuthentication,
    updateVaultForwardAuthentication,
    deleteVaultForwardAuthentication,
  ]) {
    app.route(route);
  }
}
