import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import Stripe from 'stripe';
import { pinnedLookup } from '../../lib/pinned-lookup.ts';
import { resolveDeliveryAddress } from '../../lib/url-safety.ts';
import { ConnectorError } from '../connector.ts';

/**
 * HTTP to Stripe, through the official `stripe` package (decision 0069 says why). Every call
 * goes to an allow-listed host only: `api.stripe.com` over TLS, or the sandbox/test base URL of
 * `STRIPE_API_BASE_URL` (refused by the configuration in production). The host is resolved and
 * checked by the same SSRF guard as outbound webhooks, and the connection goes to the checked
 * address (no second DNS answer). No automatic retries: a retry is ours to decide, with the same
 * idempotency key.
 */

/** Stripe's API host: the only one reached in production. */
export const STRIPE_API_HOSTS = ['api.stripe.com'] as const;
const STRIPE_API_URL = 'https://api.stripe.com';
/** Stripe's own bound of one request (ours of the whole call is 30 s, connectors/call.ts). */
const REQUEST_TIMEOUT_MS = 25_000;

export interface StripeEndpoint {
  /** `null`: https://api.stripe.com. Otherwise a test or sandbox base URL (never in production). */
  baseUrl: string | null;
}

/** Where calls go: the allow-listed host, or the override. */
function targetOf(endpoint: StripeEndpoint): URL {
  const url = new URL(endpoint.baseUrl ?? STRIPE_API_URL);
  if (endpoint.baseUrl === null && !(STRIPE_API_HOSTS as readonly string[]).includes(url.hostname))
    throw new ConnectorError('invalid_request', 'Stripe calls go to api.stripe.com only');
  return url;
}

/** A Stripe client bound to one secret key, connecting to the checked address of the allowed host. */
export async function stripeClient(endpoint: StripeEndpoint, secretKey: string): Promise<Stripe> {
  const url = targetOf(endpoint);
  // The override is a local fake or a sandbox proxy: private addresses and http are allowed for it only.
  const resolved = await resolveDeliveryAddress(url.href, {
    production: endpoint.baseUrl === null,
    allowPrivate: endpoint.baseUrl !== null,
    setting: 'STRIPE_API_BASE_URL',
  });
  if (!resolved.ok) throw new ConnectorError('unavailable', `Stripe's API host cannot be reached: ${resolved.problem}`);
  const https = url.protocol === 'https:';
  const options = { lookup: pinnedLookup(resolved.address, resolved.family), keepAlive: false };
  return new Stripe(secretKey, {
    // No apiVersion: the package's pinned version, the one its types describe.
    host: url.hostname,
    port: Number(url.port || (https ? 443 : 80)),
    protocol: https ? 'https' : 'http',
    httpAgent: https ? new HttpsAgent(options) : new HttpAgent(options),
    timeout: REQUEST_TIMEOUT_MS,
    maxNetworkRetries: 0,
    telemetry: false,
  });
}

const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * A Stripe error that is not a card decline → `ConnectorError` (STYLE E5). Only Stripe's code and
 * status travel on; its message stays out (it may quote request parameters).
 * - 401/403 and 400/404/409: our request or the credentials are wrong (`invalid_request`);
 * - 429 and a connection never made: nothing happened (`unavailable`);
 * - 5xx and a broken or timed-out connection: Stripe's docs call the result indeterminate, so the
 *   outcome is unknown (`timeout`) and reconciliation asks later, with the same idempotency key.
 */
export function connectorErrorOf(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  if (!(error instanceof Stripe.errors.StripeError))
    return new ConnectorError('timeout', 'Stripe call failed without an answer');
  const status = error.statusCode ?? null;
  const raw = { code: error.code ?? error.type, description: `HTTP ${status ?? 'none'}` };
  if (error instanceof Stripe.errors.StripeConnectionError) {
    const code = (error.detail as { code?: string } | undefined)?.code;
    return code && NEVER_SENT.has(code)
      ? new ConnectorError('unavailable', 'Stripe could not be reached', raw)
      : new ConnectorError('timeout', 'Stripe did not answer in time', raw);
  }
  if (status === 429) return new ConnectorError('unavailable', 'Stripe rate-limited the request', raw);
  if (status !== null && status >= 500)
    return new ConnectorError('timeout', `Stripe answered ${status}: the outcome is unknown`, raw);
  if (status === 401 || status === 403)
    return new ConnectorError('invalid_request', 'Stripe refused the secret key', raw);
  return new ConnectorError('invalid_request', `Stripe refused the request (${raw.code})`, raw);
}

/** Whether Stripe said the object does not exist (a sync of a call that never arrived). */
export const isMissing = (error: unknown) => error instanceof Stripe.errors.StripeError && error.statusCode === 404;

export { Stripe };
