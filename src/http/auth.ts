import type { FastifyRequest } from 'fastify';
import { hasScope, type Deps } from '../context.ts';
import { forbidden, missingScope, unauthorized } from '../errors/app-error.ts';
import { verifyAccessToken, VerifiedTokenCache } from '../modules/api-key-pairs/access-token.ts';
import { MerchantAccountCache } from '../modules/merchant-accounts/merchant-account-cache.ts';

export const MERCHANT_HEADER = 'x-svc-merchant-account-id';
export const DEFAULT_MERCHANT_ACCOUNT = 'default';

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/;

/**
 * Authenticates a request and picks its merchant account. Runs as the first hook of every route
 * that declares a scope, before the body is validated: an unauthenticated caller learns nothing
 * about the request shape.
 */
export function createAuthenticator(deps: Deps) {
  const tokens = new VerifiedTokenCache();
  const merchants = new MerchantAccountCache(deps.db);

  return async function authenticate(request: FastifyRequest): Promise<void> {
    const config = request.routeOptions.config;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) {
      request.log.debug({ reason: header ? 'malformed Authorization header' : 'no Authorization header' }, 'unauthorized');
      throw unauthorized();
    }
    let principal;
    try {
      principal = await verifyAccessToken(match[1]!, deps.keyPairs, tokens, { maxLifetimeSeconds: deps.config.tokenMaxLifetimeSeconds });
    } catch (error) {
      request.log.debug({ reason: (error as { reason?: string }).reason }, 'unauthorized');
      throw error;
    }
    if (config.scope && !hasScope(principal, config.scope)) throw missingScope(config.scope);

    const requested = request.headers[MERCHANT_HEADER];
    const named = typeof requested === 'string' && requested !== '' ? requested : null;
    for (const pinned of [principal.restrictedTo, principal.tokenMerchantAccountId]) {
      if (pinned !== null && named !== null && named !== pinned) throw forbidden(`This credential may not act on merchant account ${named}`);
    }
    if (principal.restrictedTo !== null && principal.tokenMerchantAccountId !== null && principal.restrictedTo !== principal.tokenMerchantAccountId) {
      throw forbidden(`This credential may not act on merchant account ${principal.tokenMerchantAccountId}`);
    }
    const merchantAccountId = named ?? principal.tokenMerchantAccountId ?? principal.restrictedTo ?? DEFAULT_MERCHANT_ACCOUNT;
    if (config.merchantScoped !== false && !(await merchants.exists(merchantAccountId))) {
      throw forbidden(`Merchant account ${merchantAccountId} does not exist or is not accessible with this credential`);
    }
    request.ctx.principal = principal;
    request.ctx.merchantAccountId = merchantAccountId;
  };
}
