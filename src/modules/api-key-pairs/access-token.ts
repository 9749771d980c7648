import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Principal } from '../../context.ts';
import { unauthorized } from '../../errors/app-error.ts';
import { DEFAULT_MESSAGE } from '../../errors/codes.ts';
import type { KeyPairCache } from './key-pair-cache.ts';

/** Allowed clock difference between the caller and this server, in seconds. */
export const CLOCK_SKEW_SECONDS = 30;

export interface VerifyOptions {
  /** Longest accepted token lifetime (exp - iat), in seconds. */
  maxLifetimeSeconds: number;
  now?: () => number;
}

interface CachedToken {
  principal: Principal;
}

/**
 * Verified tokens by SHA-256 of the token text, kept until they expire. ES512 verification costs
 * about 2 ms of CPU; a client that reuses its token pays it once. Bounded: the oldest entries go
 * first (Map keeps insertion order).
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, CachedToken>();
  constructor(private readonly maxEntries = 50_000) {}

  get(hash: string, nowSeconds: number): Principal | null {
    const entry = this.entries.get(hash);
    if (!entry) return null;
    if (entry.principal.expiresAt + CLOCK_SKEW_SECONDS <= nowSeconds) {
      this.entries.delete(hash);
      return null;
    }
    return entry.principal;
  }

  set(hash: string, principal: Principal): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, { principal });
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * What a 401 tells the caller, after the specification's sentence: which of a few classes of
 * failure it was, never more (no key id, no claim value, no library message). An expiry is only
 * reported for a token whose signature verified, so it tells nothing to a forger; an unknown key and
 * a revoked one answer alike.
 */
export type RefusalClass =
  | 'missing authorization header'
  | 'malformed authorization header'
  | 'malformed token'
  | 'unknown key'
  | 'invalid signature'
  | 'token expired'
  | 'token not yet valid'
  | `lifetime exceeds ${string}`;

/** The 401 of a refused bearer credential: the spec's message and its class (http/auth.ts logs `reason`). */
export function refusal(said: RefusalClass, reason: string = said): never {
  const error = unauthorized(`${DEFAULT_MESSAGE.unauthorized}: ${said}`);
  (error as { reason?: string }).reason = reason;
  throw error;
}

/** 86400 → "24 h", 90 → "90 s". */
export const lifetimeText = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds} s`);

/** The claim jose names in its error codes → what the caller is told. */
function verificationClass(error: unknown): RefusalClass {
  const code = (error as { code?: string }).code;
  if (code === 'ERR_JWT_EXPIRED') return 'token expired';
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return 'invalid signature';
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && (error as { claim?: string }).claim === 'nbf')
    return 'token not yet valid';
  return 'malformed token';
}

function readScopes(payload: JWTPayload): string[] {
  const scopes = payload.scopes;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string'))
    refusal('malformed token', 'the scopes claim is missing or not a list of strings');
  return scopes as string[];
}

/**
 * The scopes a token of a pair with roles gets: each of the roles' scopes the token claims (itself
 * or by `*.read` / `*.write`), and `embed` when claimed. A pair without roles: what the token claims.
 */
export function scopesWithin(claimed: readonly string[], roleScopes: readonly string[] | null): string[] {
  if (roleScopes === null) return [...claimed];
  const granted = roleScopes.filter(
    (scope) => claimed.includes(scope) || claimed.includes(`*.${scope.slice(scope.lastIndexOf('.') + 1)}`),
  );
  return claimed.includes('embed') ? [...granted, 'embed'] : granted;
}

/** Verifies a bearer JWT against the stored key pairs. Throws 401 with the specification's message. */
export async function verifyAccessToken(
  token: string,
  keyPairs: KeyPairCache,
  cache: VerifiedTokenCache,
  options: VerifyOptions,
): Promise<Principal> {
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const hash = createHash('sha256').update(token).digest('base64url');
  const cached = cache.get(hash, nowSeconds);
  if (cached) {
    // Revocation must win over the token cache: the key pair lookup is itself short-lived.
    const pair = await keyPairs.get(cached.thumbprint);
    if (!pair?.active) refusal('unknown key', 'the key pair was revoked');
    return cached;
  }

  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    refusal('malformed token', 'the token is not a JWT');
  }
  if (header.alg !== 'ES512')
    refusal('malformed token', `algorithm ${String(header.alg)} is not accepted; only ES512 is`);
  if (typeof header.kid !== 'string' || header.kid.length === 0 || header.kid.length > 200)
    refusal('malformed token', 'the token header has no kid');
  const pair = await keyPairs.get(header.kid);
  if (!pair) refusal('unknown key', 'unknown kid');
  if (!pair.active) refusal('unknown key', 'the key pair was revoked');

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, pair.key, {
      algorithms: ['ES512'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowSeconds * 1000),
    }));
  } catch (error) {
    refusal(verificationClass(error), `verification failed: ${(error as Error).message}`);
  }
  const iat = payload.iat!;
  const exp = payload.exp!;
  if (iat > nowSeconds + CLOCK_SKEW_SECONDS) refusal('token not yet valid', 'iat is in the future');
  if (exp - iat > options.maxLifetimeSeconds)
    refusal(
      `lifetime exceeds ${lifetimeText(options.maxLifetimeSeconds)}`,
      `the token lifetime exceeds ${options.maxLifetimeSeconds} s`,
    );
  const embed = payload.embed;
  if (embed !== undefined && (typeof embed !== 'object' || embed === null || Array.isArray(embed)))
    refusal('malformed token', 'the embed claim is not an object');

  const principal: Principal = {
    kind: 'api-key-pair',
    keyPairId: pair.id,
    keyPairName: pair.displayName,
    thumbprint: pair.thumbprint,
    scopes: scopesWithin(readScopes(payload), pair.roleScopes),
    restrictedTo: pair.restrictedTo,
    embed: (embed as Record<string, unknown> | undefined) ?? null,
    tokenMerchantAccountId: typeof payload.merchant_account_id === 'string' ? payload.merchant_account_id : null,
    tokenId: typeof payload.jti === 'string' ? payload.jti : null,
    tokenHash: hash,
    expiresAt: exp,
  };
  cache.set(hash, principal);
  return principal;
}
