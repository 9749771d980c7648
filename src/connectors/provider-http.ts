import { resolveDeliveryAddress } from '../lib/url-safety.ts';
import { relay, RelayError } from '../lib/relay.ts';
import { ConnectorError } from './connector.ts';

/**
 * The outbound HTTP of the real provider connectors: only to the provider's own hosts (an
 * allow-list per definition), over TLS, through the project's SSRF-checked relay (the address
 * checked is the address connected to; no redirect is followed). A base-URL override exists for
 * tests and sandboxes only (`CONNECTOR_BASE_URLS`, refused in production by the configuration):
 * with it, http and loopback addresses are allowed.
 */

/**
 * Timeouts. A provider answers an authorization within seconds; 5 s to connect covers a TLS
 * handshake many times over, and the total of 25 s stays under the engine's 30 s bound
 * (`CONNECTOR_TIMEOUT_MS`), so our own timeout, with its classification, is the one that fires.
 */
export const PROVIDER_CONNECT_TIMEOUT_MS = 5_000;
export const PROVIDER_TOTAL_TIMEOUT_MS = 25_000;
/** Provider answers are small JSON documents; anything larger is refused. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface ProviderEndpoint {
  /** Absolute base URL the path is appended to. */
  baseUrl: string;
  /** Host names the connector may reach (exact names, or `*suffix`). */
  allowedHosts: readonly string[];
  /** The sandbox override is in use: http and private addresses are allowed, the allow-list is not applied. */
  overridden: boolean;
  timeoutMs?: number;
}

/**
 * A request body sent exactly as given, with its content type: a form (PayPal's OAuth token
 * call), or JSON that embeds bytes a provider signed and must see unchanged.
 */
export class RawBody {
  constructor(
    readonly text: string,
    readonly contentType: string,
  ) {}
}

export interface ProviderResponse {
  status: number;
  /** The parsed JSON body, or null when the body is empty or not JSON. */
  json: unknown;
}

export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  // `*.example.com` and `*-live.example.com`: anything before the suffix, which must be non-empty.
  return allowed.some((pattern) =>
    pattern.startsWith('*') ? host.length > pattern.length - 1 && host.endsWith(pattern.slice(1)) : host === pattern,
  );
}

/** Errors that prove the request never reached the provider: `unavailable`; any other failure may have come after it acted: `timeout`. */
const NEVER_SENT = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|no connection to the target/;

export function classify(error: unknown, provider: string): ConnectorError {
  if (error instanceof RelayError && error.kind !== 'too_large' && NEVER_SENT.test(error.message)) {
    return new ConnectorError('unavailable', `${provider} could not be reached`);
  }
  return new ConnectorError('timeout', `${provider} did not answer completely; the outcome is unknown`);
}

/** Sends one JSON request to the provider. Never logs; card data in `body` goes to the provider only. */
export async function providerRequest(
  endpoint: ProviderEndpoint,
  provider: string,
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<ProviderResponse> {
  const url = new URL(`${endpoint.baseUrl.replace(/\/$/, '')}${path}`);
  if (!endpoint.overridden && (url.protocol !== 'https:' || !hostAllowed(url.hostname, endpoint.allowedHosts))) {
    throw new ConnectorError('invalid_request', `${provider}: ${url.hostname} is not one of the provider's hosts`);
  }
  const target = await resolveDeliveryAddress(url.toString(), {
    production: !endpoint.overridden,
    allowPrivate: endpoint.overridden,
    setting: 'CONNECTOR_BASE_URLS',
  });
  if (!target.ok) throw new ConnectorError('unavailable', `${provider} could not be reached: ${target.problem}`);
  const payload = body === undefined ? null : body instanceof RawBody ? body.text : JSON.stringify(body);
  const contentType = body instanceof RawBody ? body.contentType : 'application/json';
  let answer: Awaited<ReturnType<typeof relay>>;
  try {
    answer = await relay({
      url,
      address: target.address,
      family: target.family,
      method,
      headers: {
        accept: 'application/json',
        ...(payload !== null ? { 'content-type': contentType } : {}),
        ...headers,
      },
      body: payload,
      timeoutMs: endpoint.timeoutMs ?? PROVIDER_TOTAL_TIMEOUT_MS,
      connectTimeoutMs: PROVIDER_CONNECT_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  } catch (error) {
    throw classify(error, provider);
  }
  let json: unknown = null;
  try {
    json = answer.body.length > 0 ? JSON.parse(answer.body.toString('utf8')) : null;
  } catch {
    json = null;
  }
  return { status: answer.status, json };
}

/** The base URL of a connector: the sandbox override when configured, else the provider's. */
export function endpointOf(
  overrides: Readonly<Record<string, string>>,
  definitionId: string,
  providerUrl: string,
  allowedHosts: readonly string[],
  timeoutMs?: number,
): ProviderEndpoint {
  const override = overrides[definitionId];
  return {
    baseUrl: override ?? providerUrl,
    allowedHosts,
    overridden: override !== undefined,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
}

/** What every real connector is built with (from the configuration, `createDefaultRegistry`). */
export interface ProviderConnectorOptions {
  /** Definition id → base URL, sandbox and tests only (`CONNECTOR_BASE_URLS`). */
  baseUrls?: Readonly<Record<string, string>>;
  /** Total HTTP timeout per call (tests use a short one for slow answers). */
  timeoutMs?: number;
}
