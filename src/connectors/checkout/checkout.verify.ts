import { ConnectorError, type VerifyOutcome } from '../connector.ts';
import type { CheckoutClient } from './checkout.client.ts';
import { httpError } from './checkout.mapping.ts';

/**
 * Field checks first, then Checkout.com itself: `GET /payments?reference=…` (a read that changes
 * nothing) with the key, on the key's environment under the account's prefix. 401: the key is
 * wrong; 403: it lacks the payments scope; no connection to the prefixed host: the prefix is wrong.
 * The processing channel is checked for its form only (not verifiable): Checkout.com has no read of
 * it for a payments key (a wrong one is refused on the first payment, 422 `processing_channel_id_invalid`).
 */
export async function verifyCheckout(
  client: CheckoutClient,
  credentials: Record<string, string>,
): Promise<VerifyOutcome> {
  const problems = fieldProblems(credentials);
  if (problems.length > 0) return { ok: false, problems };
  let status: number;
  let json: unknown;
  try {
    ({ status, json } = await client.call(
      credentials,
      'GET',
      '/payments?reference=svc-credential-check&limit=1',
      undefined,
    ));
  } catch (error) {
    if (error instanceof ConnectorError && error.kind === 'unavailable' && credentials.url_prefix?.trim())
      return {
        ok: false,
        problems: [
          { key: 'url_prefix', message: `Checkout.com could not be reached at ${client.baseUrl(credentials)}` },
        ],
      };
    throw error;
  }
  if ((status >= 200 && status < 300) || status === 404) return { ok: true, problems: [] };
  if (status === 401)
    return {
      ok: false,
      problems: [{ key: 'secret_key', message: 'Checkout.com refused the secret key (401 Unauthorized)' }],
    };
  if (status === 403)
    return {
      ok: false,
      problems: [
        {
          key: 'secret_key',
          message: 'The secret key may not read payments (403 Forbidden): give it the payments scopes',
        },
      ],
    };
  throw httpError(status, json);
}

/** Checkout.com's ids: a type prefix and 26 lower-case base32 characters (`pc_…`, `ca_…`); checked without patterns. */
const ID_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789';
const KEY_CHARS = `${ID_CHARS}ABCDEFGHIJKLMNOPQRSTUVWXYZ_-`;
const onlyOf = (value: string, chars: string) => [...value].every((c) => chars.includes(c));
const isId = (value: string, prefix: string) =>
  value.startsWith(prefix) && value.length === prefix.length + 26 && onlyOf(value.slice(prefix.length), ID_CHARS);

function fieldProblems(credentials: Record<string, string>): VerifyOutcome['problems'] {
  const problems: VerifyOutcome['problems'] = [];
  const key = credentials.secret_key?.trim() ?? '';
  if (!key.startsWith('sk_') || key.length < 11 || key.length > 203 || !onlyOf(key, KEY_CHARS))
    problems.push({ key: 'secret_key', message: 'secret_key must be a Checkout.com secret key (sk_… or sk_sbox_…)' });
  const channel = credentials.processing_channel_id?.trim();
  if (channel && !isId(channel, 'pc_'))
    problems.push({
      key: 'processing_channel_id',
      message: 'processing_channel_id must be a processing channel id (pc_ and 26 characters)',
    });
  const prefix = credentials.url_prefix?.trim();
  if (prefix && (prefix.length !== 8 || !onlyOf(prefix, ID_CHARS)))
    problems.push({
      key: 'url_prefix',
      message: 'url_prefix must be the first 8 characters of the client ID, without cli_',
    });
  const source = credentials.payout_source_id?.trim();
  if (source && !isId(source, 'ca_'))
    problems.push({
      key: 'payout_source_id',
      message: 'payout_source_id must be a currency account id (ca_ and 26 characters)',
    });
  return problems;
}
