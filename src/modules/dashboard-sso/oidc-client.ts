import * as oidc from 'openid-client';
import { AppError } from '../../errors/app-error.ts';
import type { SsoConfig } from './dashboard-sso.config.ts';

/**
 * The identity provider as `openid-client` sees it: its discovery document, read once per process
 * (again after a failure) with a 10-second timeout. The issuer is the operator's setting, never a
 * request's: https in production (the configuration refuses http there), http allowed in the
 * sandbox for a provider on this machine.
 */
const DISCOVERY_TIMEOUT_SECONDS = 10;
const discovered = new WeakMap<SsoConfig, Promise<oidc.Configuration>>();

export function providerOf(sso: SsoConfig): Promise<oidc.Configuration> {
  let pending = discovered.get(sso);
  if (!pending) {
    pending = oidc
      .discovery(sso.issuer, sso.clientId, sso.clientSecret, undefined, {
        timeout: DISCOVERY_TIMEOUT_SECONDS,
        ...(sso.issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .catch((error: unknown) => {
        discovered.delete(sso);
        throw new AppError(
          'bad_gateway',
          `The single sign-on provider at ${sso.issuer.origin} could not be reached or answered no valid discovery document (${error instanceof Error ? error.message : String(error)}); sign in with your password, or ask the operator to check DASHBOARD_OIDC_ISSUER`,
        );
      });
    discovered.set(sso, pending);
  }
  return pending;
}

/** What a sign-in needs to remember between the redirect and the return. */
export interface LoginChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

export function newChecks(): LoginChecks {
  return { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
}

/** The provider's authorization address: code flow, PKCE (S256), state and nonce. */
export async function authorizationUrl(sso: SsoConfig, redirectUri: string, checks: LoginChecks): Promise<URL> {
  const provider = await providerOf(sso);
  return oidc.buildAuthorizationUrl(provider, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    response_type: 'code',
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: 'S256',
    state: checks.state,
    nonce: checks.nonce,
  });
}

/** The ID token's claims a sign-in reads. */
export interface IdentityClaims {
  iss: string;
  sub: string;
  email: string | null;
  emailVerified: boolean | null;
  name: string | null;
  amr: string[];
  claims: Record<string, unknown>;
}

/**
 * Exchanges the code of the return address for tokens and checks the ID token (signature by the
 * provider's keys, issuer, audience, expiry, nonce) and the state and PKCE verifier.
 */
export async function finishLogin(sso: SsoConfig, currentUrl: URL, checks: LoginChecks): Promise<IdentityClaims> {
  const provider = await providerOf(sso);
  const tokens = await oidc.authorizationCodeGrant(provider, currentUrl, {
    pkceCodeVerifier: checks.codeVerifier,
    expectedState: checks.state,
    expectedNonce: checks.nonce,
    idTokenExpected: true,
  });
  const claims = tokens.claims();
  if (!claims) throw new Error('the provider answered no ID token');
  const text = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);
  return {
    iss: claims.iss,
    sub: claims.sub,
    email: text(claims.email),
    emailVerified: typeof claims.email_verified === 'boolean' ? claims.email_verified : null,
    name: text(claims.name),
    amr: Array.isArray(claims.amr) ? claims.amr.filter((v): v is string => typeof v === 'string') : [],
    claims: claims as Record<string, unknown>,
  };
}
