import { ConnectorError } from '../connector.ts';
import {
  endpointOf,
  providerRequest,
  RawBody,
  type ProviderConnectorOptions,
  type ProviderResponse,
} from '../provider-http.ts';
import { RISKIFIED_ANTI_FRAUD_DEFINITION, RISKIFIED_HOSTS, RISKIFIED_URLS } from './riskified.definition.ts';
import { riskifiedSignature } from './riskified.signature.ts';

/**
 * A pre-authorization decision sits between the buyer's click and the authorization, so it gets a
 * much shorter bound than a payment call (25 s): past 5 s the payment goes on without it (fail
 * open, decision 0139). Riskified's Decide answers in well under a second.
 */
export const RISKIFIED_TIMEOUT_MS = 5_000;
/**
 * The reports after the decision (decision 0143) run in a background job that retries: nobody
 * waits on them, so they get the payment calls' bound. A report cut off is sent again.
 */
export const RISKIFIED_UPDATE_TIMEOUT_MS = 25_000;

/**
 * Riskified's API over HTTP, nothing else: every request carries the API version in Accept, the
 * shop domain and the HMAC of the exact body bytes sent (`RawBody`), through the SSRF-checked relay.
 */
export class RiskifiedClient {
  constructor(private readonly options: ProviderConnectorOptions) {}

  async post(
    credentials: Record<string, string>,
    path: string,
    body: unknown,
    timeoutMs = RISKIFIED_TIMEOUT_MS,
  ): Promise<ProviderResponse> {
    const domain = credentials.shop_domain?.trim();
    const token = credentials.auth_token;
    if (!domain || !token)
      throw new ConnectorError('invalid_request', 'The Riskified anti-fraud service has no shop_domain or auth_token');
    const text = JSON.stringify(body);
    const live = credentials.environment?.trim() === 'live';
    const endpoint = endpointOf(
      this.options.baseUrls ?? {},
      RISKIFIED_ANTI_FRAUD_DEFINITION.id,
      live ? RISKIFIED_URLS.live : RISKIFIED_URLS.sandbox,
      RISKIFIED_HOSTS,
      this.options.timeoutMs ?? timeoutMs,
    );
    const headers = {
      accept: 'application/vnd.riskified.com; version=2',
      'x-riskified-shop-domain': domain,
      'x-riskified-hmac-sha256': riskifiedSignature(token, text),
    };
    return providerRequest(endpoint, 'Riskified', 'POST', path, headers, new RawBody(text, 'application/json'));
  }
}
