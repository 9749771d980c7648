import { ConnectorError } from '../connector.ts';
import { endpointOf, providerRequest, type ProviderConnectorOptions, type ProviderResponse } from '../provider-http.ts';
import { ADYEN_CARD_DEFINITION, ADYEN_HOSTS, ADYEN_TEST_URL, adyenLiveUrl } from './adyen.definition.ts';

/**
 * Adyen Checkout API over HTTP, nothing else: X-API-Key authentication, the Idempotency-Key
 * header, the test or live base URL. Every POST carries an idempotency key, so a retried call
 * returns Adyen's first answer instead of acting twice.
 */
export class AdyenClient {
  constructor(private readonly options: ProviderConnectorOptions) {}

  /** The base URL of these credentials: live under the merchant's prefix, else test. */
  baseUrl(credentials: Record<string, string>): string {
    const prefix = credentials.live_url_prefix?.trim();
    return prefix ? adyenLiveUrl(prefix) : ADYEN_TEST_URL;
  }

  async post(
    credentials: Record<string, string>,
    path: string,
    body: Record<string, unknown>,
    idempotencyKey: string | null,
  ): Promise<ProviderResponse> {
    const headers = this.headersOf(credentials);
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    return providerRequest(this.endpointOf(credentials), 'Adyen', 'POST', path, headers, body);
  }

  /** A read (`GET /sessions/{id}`): no body, no idempotency key (it changes nothing). */
  async get(credentials: Record<string, string>, path: string): Promise<ProviderResponse> {
    return providerRequest(this.endpointOf(credentials), 'Adyen', 'GET', path, this.headersOf(credentials), undefined);
  }

  private headersOf(credentials: Record<string, string>): Record<string, string> {
    const apiKey = credentials.api_key;
    if (!apiKey) throw new ConnectorError('invalid_request', 'The Adyen payment service has no api_key');
    return { 'x-api-key': apiKey };
  }

  private endpointOf(credentials: Record<string, string>) {
    return endpointOf(
      this.options.baseUrls ?? {},
      ADYEN_CARD_DEFINITION.id,
      this.baseUrl(credentials),
      ADYEN_HOSTS,
      this.options.timeoutMs,
    );
  }
}
