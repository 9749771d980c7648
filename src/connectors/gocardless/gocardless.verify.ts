import type { VerifyOutcome } from '../connector.ts';
import type { GoCardlessClient } from './gocardless.client.ts';
import { httpError } from './gocardless.mapping.ts';

/**
 * Field checks, then GoCardless itself: `GET /creditors?limit=1` with the access token (401: a
 * token of the other environment, or revoked; 403: a read-only token, which cannot create
 * billing requests or payments).
 */
export async function verifyGoCardless(
  client: GoCardlessClient,
  credentials: Record<string, string>,
): Promise<VerifyOutcome> {
  const problems: VerifyOutcome['problems'] = [];
  if (!credentials.access_token?.trim()) problems.push({ key: 'access_token', message: 'access_token is required' });
  const environment = credentials.environment?.trim();
  if (environment && environment !== 'sandbox' && environment !== 'live')
    problems.push({ key: 'environment', message: 'environment must be "sandbox" or "live"' });
  if (problems.length > 0) return { ok: false, problems };
  const response = await client.call(credentials, 'GET', '/creditors?limit=1', undefined);
  if (response.status === 401 || response.status === 403)
    return {
      ok: false,
      problems: [
        {
          key: 'access_token',
          message: `GoCardless refused the access token (${response.status}) for the ${environment || 'sandbox'} environment`,
        },
      ],
    };
  if (response.status !== 200) throw httpError(response.status, response.json);
  return { ok: true, problems: [] };
}
