import { resolveDeliveryAddress } from '../lib/url-safety.ts';
import { relay } from '../lib/relay.ts';
import { ConnectorError } from './connector.ts';
import { classify, hostAllowed, PROVIDER_CONNECT_TIMEOUT_MS, type ProviderEndpoint } from './provider-http.ts';

/**
 * A file a provider serves (Adyen's report files): one GET through the same guard as the JSON calls
 * of `provider-http.ts` (https to the provider's own hosts only unless the sandbox override is set,
 * the SSRF-checked relay, no redirect followed), with the limits of a file rather than of an answer.
 */

/** A settlement report of a busy merchant account runs to tens of megabytes; larger is refused. */
export const PROVIDER_FILE_MAX_BYTES = 64 * 1024 * 1024;
/** Time for the whole file (the connection itself still has `PROVIDER_CONNECT_TIMEOUT_MS`). */
export const PROVIDER_FILE_TIMEOUT_MS = 120_000;

export interface ProviderFile {
  status: number;
  body: Buffer;
}

export async function providerDownload(
  endpoint: ProviderEndpoint,
  provider: string,
  path: string,
  headers: Record<string, string>,
): Promise<ProviderFile> {
  const base = endpoint.baseUrl.endsWith('/') ? endpoint.baseUrl.slice(0, -1) : endpoint.baseUrl;
  const url = new URL(`${base}${path}`);
  if (!endpoint.overridden && (url.protocol !== 'https:' || !hostAllowed(url.hostname, endpoint.allowedHosts))) {
    throw new ConnectorError('invalid_request', `${provider}: ${url.hostname} is not one of the provider's hosts`);
  }
  const target = await resolveDeliveryAddress(url.toString(), {
    production: !endpoint.overridden,
    allowPrivate: endpoint.overridden,
    setting: 'CONNECTOR_BASE_URLS',
  });
  if (!target.ok) throw new ConnectorError('unavailable', `${provider} could not be reached: ${target.problem}`);
  try {
    const answer = await relay({
      url,
      address: target.address,
      family: target.family,
      method: 'GET',
      headers: { accept: 'text/csv, */*', ...headers },
      body: null,
      timeoutMs: endpoint.timeoutMs ?? PROVIDER_FILE_TIMEOUT_MS,
      connectTimeoutMs: PROVIDER_CONNECT_TIMEOUT_MS,
      maxResponseBytes: PROVIDER_FILE_MAX_BYTES,
    });
    return { status: answer.status, body: answer.body };
  } catch (error) {
    // A GET changes nothing at the provider: whatever failed, asking again later is safe.
    const failure = classify(error, provider);
    throw new ConnectorError('unavailable', failure.message);
  }
}
