import { createHash } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import type { Principal } from '../../context.ts';
import { unauthorized } from '../../errors/app-error.ts';
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

function fail(reason: string): never {
  const error = unauthorized();
  (error as { reason?: string }).reason = reason;
  throw error;
}

function readScopes(payload: JWTPayload): string[] {
  const scopes = payload.scopes;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) fail('the scopes claim is missing or not a list of strings');
  return scopes as string[];
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
    if (!pair || !pair.active) fail('the key pair was revoked');
    return cached;
  }

  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    fail('the token is not a JWT');
  }
  if (header.alg !== 'ES512') fail(`algorithm ${String(header.alg)} is not accepted; only ES512 is`);
  if (typeof header.kid !== 'string' || header.kid.length === 0 || header.kid.length > 200) fail('the token header has no kid');
  const pair = await keyPairs.get(header.kid);
  if (!pair) fail('unknown kid');
  if (!pair.active) fail('the key pair was revoked');

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, pair.key, {
      algorithms: ['ES512'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      requiredClaims: ['exp', 'iat'],
      currentDate: new Date(nowSeconds * 1000),
    }));
  } catch (error) {
    fail(`verification failed: ${(error as Error).message}`);
  }
  const iat = payload.iat!;
  const exp = payload.exp!;
  if (iat > nowSeconds + CLOCK_SKEW_SECONDS) fail('iat is in the future');
  if (exp - iat > options.maxLifetimeSeconds) fail(`the token lifetime exceeds ${options.maxLifetimeSeconds} s`);
  const embed = payload.embed;
  if (embed !== undefined && (typeof embed !== 'object' || embed === null || Array.isArray(embed))) fail('the embed claim is not an object');

  const principal: Principal = {
    kind: 'api-key-pair',
    keyPairId: pair.id,
    keyPairName: pair.displayName,
    thumbprint: pair.thumbprint,
    scopes: readScopes(payload),
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
