import { ALL_SCOPES } from '../http/scopes.ts';
import { lifetimeText } from '../modules/api-key-pairs/access-token.ts';

/**
 * What `svc token` refuses before signing: whatever the server would answer 401 or ignore, so a
 * token it prints works (src/modules/api-key-pairs/access-token.ts holds the server's rules).
 */
export function checkTokenRequest(
  given: { lifetime: string | undefined; scopes: string[] | undefined; embed: string | undefined },
  maxLifetimeSeconds: number,
): { lifetimeSeconds: number; scopes: string[]; embed: Record<string, unknown> | null } {
  const lifetimeSeconds = Number(given.lifetime ?? '3600');
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1)
    throw new Error(`--lifetime must be a positive whole number of seconds, got "${given.lifetime}"`);
  if (lifetimeSeconds > maxLifetimeSeconds) {
    throw new Error(
      `--lifetime ${lifetimeSeconds} is longer than the server accepts (${maxLifetimeSeconds} s, ${lifetimeText(maxLifetimeSeconds)}: TOKEN_MAX_LIFETIME_SECONDS); the server would answer 401 "lifetime exceeds ${lifetimeText(maxLifetimeSeconds)}"`,
    );
  }
  const scopes = given.scopes && given.scopes.length > 0 ? given.scopes : ['*.read', '*.write'];
  const unknown = scopes.filter((scope) => !ALL_SCOPES.includes(scope));
  if (unknown.length > 0) {
    throw new Error(
      `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}: a scope is *.read, *.write, embed or <resource>.read / <resource>.write (e.g. transactions.write); the OpenAPI document lists them (x-scopes)`,
    );
  }
  let embed: Record<string, unknown> | null = null;
  if (given.embed !== undefined) {
    try {
      embed = JSON.parse(given.embed) as Record<string, unknown>;
    } catch {
      embed = null;
    }
    if (embed === null || typeof embed !== 'object' || Array.isArray(embed))
      throw new Error(`--embed must be a JSON object (e.g. '{"amount":1299,"currency":"USD"}'), got ${given.embed}`);
    if (!scopes.includes('embed'))
      throw new Error('--embed goes with --scope embed: the server reads the embed claim of embed tokens only');
  }
  return { lifetimeSeconds, scopes, embed };
}
