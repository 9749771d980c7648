import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../context.ts';
import type { Executor } from '../db/transaction.ts';
import { isUnkeyed, KEYED, keyedLegacyHash, LEGACY_KEYED } from '../modules/idempotency-keys/request-hashes.ts';
import type { Binding, Vault } from '../vault/vault.ts';
import { canonical } from '../lib/canonical-json.ts';

export { canonical };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Fields whose values carry card data, in any body: card and gift card numbers, security codes,
 * pins, expiry dates, network and wallet tokens, cryptograms. Matched by name wherever they sit
 * (a `number` that is not a card is MACed all the same, which changes nothing but the cost).
 */
const CARD_FIELDS = new Set([
  'number',
  'card_number',
  'pan',
  'security_code',
  'cvv',
  'cvc',
  'pin',
  'expiration_date',
  'token',
  'cryptogram',
  'checkout_token',
]);

/** The body with each card field's value replaced by its keyed MAC: a changed card is still another request. */
function withoutCardData(value: unknown, macOf: (value: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutCardData(item, macOf));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[key] =
      CARD_FIELDS.has(key) && item !== null && item !== undefined
        ? `mac:${macOf(canonical(item))}`
        : withoutCardData(item, macOf);
  }
  return out;
}

function parsedBody(request: FastifyRequest): { json: unknown } | { raw: string } | null {
  const raw = request.rawBody;
  if (raw === undefined || raw === '') return null;
  try {
    return { json: JSON.parse(raw) as unknown };
  } catch {
    return { raw };
  }
}

/**
 * What a key's request is: method, full URL and body as canonical JSON, as a keyed MAC under the
 * merchant account's `request` key (`k1:`), with each card field MACed on its own first: neither
 * the stored value nor the text it is computed from holds a card value (issue 48; a plain SHA-256
 * of the body gave the card number and security code back in about 10⁶ guesses).
 */
export async function requestHash(
  vault: Vault,
  db: Executor,
  merchantAccountId: string,
  request: FastifyRequest,
): Promise<string> {
  const body = parsedBody(request);
  const mac = await vault.requestMac(db, merchantAccountId, (macOf) => {
    const text =
      body === null ? '' : 'json' in body ? canonical(withoutCardData(body.json, macOf)) : `mac:${macOf(body.raw)}`;
    return `${request.method} ${request.url}\n${text}`;
  });
  return KEYED + mac;
}

/**
 * The request hash of the versions before migration 0038 (SHA-256 of method, URL and canonical
 * body), computed in memory only to recognise a key they stored; never stored again. Remove it
 * once no key of that age can exist (IDEMPOTENCY_TTL_SECONDS after the upgrade).
 */
export function legacyRequestHash(request: FastifyRequest): string {
  const body = parsedBody(request);
  return sha256(
    `${request.method} ${request.url}\n${body === null ? '' : 'json' in body ? canonical(body.json) : body.raw}`,
  );
}

/**
 * Whether a stored request hash is this request's, and if so the hash its response was sealed
 * under (`responseBinding`), else null: the keyed hash itself; or, for a key stored before
 * migration 0038, its old SHA-256 as stored (not yet rewritten) or rewritten by the rekey job
 * (`k0:`), whose response is still sealed under the old SHA-256.
 */
export async function matchStoredHash(
  stored: string,
  requestHash: string,
  legacy: { vault: Vault; db: Executor; merchantAccountId: string; request: FastifyRequest },
): Promise<string | null> {
  if (stored === requestHash) return requestHash;
  if (stored.startsWith(KEYED)) return null;
  const old = legacyRequestHash(legacy.request);
  if (isUnkeyed(stored)) return stored === old ? old : null;
  if (stored.startsWith(LEGACY_KEYED))
    return stored === (await keyedLegacyHash(legacy.vault, legacy.db, legacy.merchantAccountId, old)) ? old : null;
  return null;
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
export function responseBinding(claim: {
  owner: string;
  key: string;
  requestHash: string;
  credentialHash: string;
}): Binding {
  const rowId = sha256(JSON.stringify([claim.owner, claim.key, claim.requestHash, claim.credentialHash]));
  return { table: 'idempotency_keys', column: 'response_body', rowId };
}
