import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../context.ts';
import type { Binding } from '../vault/vault.ts';

/** JSON with sorted keys, so the same body sent with other whitespace or key order matches. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a key's request is: method, full URL and body as canonical JSON. */
export function requestHash(request: FastifyRequest): string {
  const raw = request.rawBody;
  let body = '';
  if (raw !== undefined && raw !== '') {
    try {
      body = canonical(JSON.parse(raw));
    } catch {
      body = raw;
    }
  }
  return sha256(`${request.method} ${request.url}\n${body}`);
}

/**
 * What the credential may see and do, beyond its key pair (the key's owner): its scopes as a set
 * and its embed pins. A response made for one token may hold what another token of the same key
 * pair may not see (billing details without `buyers.billing-details.read`), so a replay needs the
 * same value. Exact equality, not "at least the same scopes": simpler to reason about, and a
 * client retrying sends the same token or one minted the same way.
 */
export function credentialHash(principal: Principal | null): string {
  const scopes = [...new Set(principal?.scopes ?? [])].sort();
  return sha256(canonical({ scopes, embed: principal?.embed ?? null }));
}

/**
 * Associated data of a sealed response: the row (owner and key; the vault adds the merchant
 * account) and the claim it answers, so a ciphertext copied to another row, or left from an earlier
 * claim of the same key, or under an edited credential hash, does not open.
 */
export function responseBinding(claim: { owner: string; key: string; requestHash: string; credentialHash: string }): Binding {
  const rowId = sha256(JSON.stringify([claim.owner, claim.key, claim.requestHash, claim.credentialHash]));
  return { table: 'idempotency_keys', column: 'response_body', rowId };
}
