import type { FastifyRequest } from 'fastify';
import { accountLimit, accountPins, hasScope, isEmbed, type Deps, type Principal } from '../context.ts';
import { forbidden, missingScope, notFound, unauthorized } from '../errors/app-error.ts';
import { isUuid } from '../lib/ids.ts';
import { refusal, verifyAccessToken, VerifiedTokenCache } from '../modules/api-key-pairs/access-token.ts';
import { dashboardPrincipal } from '../modules/dashboard-sessions/session-principal.ts';
import { CSRF_HEADER, readSessionCookie } from '../modules/dashboard-sessions/session-cookie.ts';
import { MerchantAccountCache } from '../modules/merchant-accounts/merchant-account-cache.ts';
import { failedLookups } from './failed-lookups.ts';
import { RateLimiter } from './rate-limit.ts';

export const MERCHANT_HEADER = 'x-svc-merchant-account-id';
export const DEFAULT_MERCHANT_ACCOUNT = 'default';

const BEARER = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+) *$/;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation is open to `embed` tokens (checkout front ends); their pins apply to its body. */
    embed?: boolean;
    /** Enumeration prevention: calls by embed tokens and checkout sessions are rate limited. */
    enumerationLimited?: boolean;
    /**
     * `checkout-session`: the session id in the path is the credential (no bearer token);
     * `transaction-session`: the `?token=` query, the transaction's session token, is.
     */
    credential?: 'bearer' | 'checkout-session' | 'transaction-session';
  }
}

/**
 * Authenticates a request and picks its merchant account. Runs as the first hook of every route
 * that declares a scope, before the body is validated: an unauthenticated caller learns nothing
 * about the request shape. Embed tokens and checkout sessions calling enumerable operations are
 * counted against the shared rate limit here too, so malformed attempts count as well.
 */
export function createAuthenticator(deps: Deps) {
  const tokens = new VerifiedTokenCache();
  const merchants = new MerchantAccountCache(deps.db);
  const limiter = new RateLimiter(deps.db, { limit: deps.config.embedRateLimitPerMinute, windowMs: 60_000 });
  const lookups = failedLookups(deps);

  async function bearer(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (!match) {
      request.log.debug(
        { reason: header ? 'malformed Authorization header' : 'no Authorization header' },
        'unauthorized',
      );
      refusal(header ? 'malformed authorization header' : 'missing authorization header');
    }
    try {
      return await verifyAccessToken(match[1]!, deps.keyPairs, tokens, {
        maxLifetimeSeconds: deps.config.tokenMaxLifetimeSeconds,
      });
    } catch (error) {
      request.log.debug({ reason: (error as { reason?: string }).reason }, 'unauthorized');
      throw error;
    }
  }

  /**
   * A request with no Authorization header and the dashboard's session cookie: the signed-in
   * user, with its roles' scopes in the merchant account it names (modules/dashboard-sessions).
   * A state-changing method must carry the session's CSRF token in x-csrf-token (403 otherwise).
   */
  async function cookieSession(request: FastifyRequest, token: string): Promise<Principal> {
    const requested = request.headers[MERCHANT_HEADER];
    return dashboardPrincipal(deps, {
      token,
      method: request.method,
      csrfHeader: request.headers[CSRF_HEADER],
      requestedAccount: typeof requested === 'string' && requested !== '' ? requested : null,
    });
  }

  async function credentialOf(request: FastifyRequest): Promise<Principal> {
    const credential = request.routeOptions.config.credential;
    if (credential === 'checkout-session') return checkoutSession(request);
    if (credential === 'transaction-session') return transactionSession(request);
    // A bearer token wins over a cookie: an API client's request is never the browser's session.
    const cookie =
      request.headers.authorization === undefined ? readSessionCookie(request.headers.cookie, deps.config) : null;
    return cookie ? cookieSession(request, cookie) : bearer(request);
  }

  async function checkoutSession(request: FastifyRequest): Promise<Principal> {
    // The per-session limit only counts ids that exist; misses count per client address (request.ip,
    // TRUST_PROXY) and a found session is served whatever its address's count (http/failed-lookups.ts).
    const id = (request.params as Record<string, string | undefined>).session_id;
    const session =
      id && isUuid(id) && deps.resolveCheckoutSession ? await deps.resolveCheckoutSession(deps, id) : null;
    if (!session || session.expiresAt.getTime() <= Date.now()) {
      await lookups.miss(request.ip);
      throw unauthorized();
    }
    return {
      kind: 'checkout-session',
      keyPairId: `checkout-session:${session.id}`,
      keyPairName: 'checkout session',
      thumbprint: '',
      scopes: [],
      restrictedTo: session.merchantAccountId,
      embed: null,
      tokenMerchantAccountId: session.merchantAccountId,
      tokenId: session.id,
      tokenHash: session.id,
      expiresAt: Math.floor(session.expiresAt.getTime() / 1000),
    };
  }

  /**
   * A transaction's session token (`?token=`) for the transaction in the path. Limited as checkout
   * session ids are: misses count in the client address's failed-lookup budget shared by every
   * tokenless lookup (a found token spends nothing and is always served), calls per transaction.
   */
  async function transactionSession(request: FastifyRequest): Promise<Principal> {
    const id = (request.params as Record<string, string | undefined>).transaction_id;
    const token = (request.query as Record<string, unknown> | undefined)?.token;
    const session =
      id && isUuid(id) && typeof token === 'string' && deps.resolveTransactionSession
        ? await deps.resolveTransactionSession(deps, id, token)
        : null;
    if (!session) {
      await lookups.miss(request.ip);
      throw unauthorized();
    }
    await limiter.hit(`transaction-session:${session.transactionId}`);
    return {
      kind: 'transaction-session',
      keyPairId: `transaction-session:${session.transactionId}`,
      keyPairName: 'transaction session',
      thumbprint: '',
      scopes: [],
      restrictedTo: session.merchantAccountId,
      embed: null,
      tokenMerchantAccountId: session.merchantAccountId,
      tokenId: session.transactionId,
      tokenHash: session.transactionId,
      expiresAt: Math.floor(session.expiresAt.getTime() / 1000),
    };
  }

  function pickMerchantAccount(request: FastifyRequest, principal: Principal): string {
    const requested = request.headers[MERCHANT_HEADER];
    const named = typeof requested === 'string' && requested !== '' ? requested : null;
    const pins = accountPins(principal);
    const chosen = named ?? pins[0] ?? DEFAULT_MERCHANT_ACCOUNT;
    const conflict = pins.find((pin) => pin !== chosen);
    if (conflict !== undefined) throw forbidden(`This credential may not act on merchant account ${chosen}`);
    return chosen;
  }

  /**
   * An operation that names a merchant account in its path (the instance-wide merchant account
   * routes) is another account's resource for a credential limited to one: 404, as for any
   * resource of another account, so the answer does not tell whether the account exists.
   */
  function checkAccountInPath(request: FastifyRequest, principal: Principal): void {
    const limit = accountLimit(principal);
    const named = (request.params as Record<string, unknown> | undefined)?.merchant_account_id;
    if (limit !== null && typeof named === 'string' && named !== limit) throw notFound('merchant account', named);
  }

  return async function authenticate(request: FastifyRequest): Promise<void> {
    const config = request.routeOptions.config;
    const principal = await credentialOf(request);
    const embedCall = isEmbed(principal);
    if ((principal.kind === 'api-key-pair' || principal.kind === 'dashboard-user') && config.scope) {
      // An embed token reaches the operations open to embed tokens only, whatever other scopes it
      // lists: the browser holds it, and its pins only apply to those operations' bodies.
      if (embedCall && config.embed !== true) throw forbidden('Embed tokens may not call this operation');
      if (!embedCall && !hasScope(principal, config.scope)) throw missingScope(config.scope);
    }
    const merchantAccountId = pickMerchantAccount(request, principal);
    checkAccountInPath(request, principal);
    if (config.merchantScoped !== false && !(await merchants.exists(merchantAccountId))) {
      throw forbidden(`Merchant account ${merchantAccountId} does not exist or is not accessible with this credential`);
    }
    request.ctx.principal = principal;
    request.ctx.merchantAccountId = merchantAccountId;
    // Server-to-server tokens are never rate limited; browser credentials are, on enumerable operations.
    if (config.enumerationLimited && (embedCall || principal.kind === 'checkout-session')) {
      await limiter.hit(
        `${principal.kind === 'checkout-session' ? 'checkout-session' : 'embed'}:${principal.tokenHash}`,
      );
    }
  };
}
