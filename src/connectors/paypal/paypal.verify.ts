import type { VerifyOutcome } from '../connector.ts';
import type { PaypalClient } from './paypal.client.ts';
import { httpError } from './paypal.mapping.ts';

type Problems = VerifyOutcome['problems'];

function fieldProblems(credentials: Record<string, string>): Problems {
  const problems: Problems = [];
  if (!credentials.client_id?.trim()) problems.push({ key: 'client_id', message: 'client_id is required' });
  if (!credentials.client_secret) problems.push({ key: 'client_secret', message: 'client_secret is required' });
  const environment = credentials.environment?.trim();
  if (environment && environment !== 'sandbox' && environment !== 'live')
    problems.push({ key: 'environment', message: 'environment must be "sandbox" or "live"' });
  const webhook = credentials.webhook_id?.trim();
  if (webhook && !/^[A-Za-z0-9-]{1,64}$/.test(webhook))
    problems.push({
      key: 'webhook_id',
      message: "webhook_id must be the ID of the app's webhook (letters, digits and dashes)",
    });
  return problems;
}

/**
 * Field checks, then PayPal itself: an access token for the client id and secret
 * (`POST /v1/oauth2/token`), and, when a webhook_id is set, that webhook of the same app
 * (`GET /v1/notifications/webhooks/{id}`: 404 when it belongs to another app or environment).
 */
export async function verifyPaypal(client: PaypalClient, credentials: Record<string, string>): Promise<VerifyOutcome> {
  const problems = fieldProblems(credentials);
  if (problems.length > 0) return { ok: false, problems };
  const token = await client.tokenResponse(credentials);
  if (token.status === 401 || token.status === 400)
    return {
      ok: false,
      problems: [
        {
          key: 'client_secret',
          message: `PayPal refused the client ID and secret (${token.status}) for the ${credentials.environment?.trim() || 'sandbox'} environment`,
        },
      ],
    };
  if (token.status !== 200) throw httpError(token.status, token.json);
  const webhook = credentials.webhook_id?.trim();
  if (!webhook) return { ok: true, problems: [] };
  const found = await client.call(
    credentials,
    'GET',
    `/v1/notifications/webhooks/${encodeURIComponent(webhook)}`,
    undefined,
  );
  if (found.status === 404)
    return {
      ok: false,
      problems: [{ key: 'webhook_id', message: 'PayPal has no webhook with this ID for this app and environment' }],
    };
  if (found.status !== 200) throw httpError(found.status, found.json);
  return { ok: true, problems: [] };
}
