import { ConnectorError } from '../connector.ts';
import { endpointOf, providerRequest, type ProviderConnectorOptions, type ProviderResponse } from '../provider-http.ts';
import { CHECKOUT_CARD_DEFINITION, CHECKOUT_HOSTS, CHECKOUT_URLS, checkoutPrefixedUrl } from './checkout.definition.ts';

/**
 * Checkout.com's API over HTTP, nothing else: the secret key as `Authorization: Bearer sk_…`
 * (www.checkout.com/docs/developer-resources/api/authentication), the `Cko-Idempotency-Key` header
 * (the attempt id) on every POST that can move money, and the base URL of the key's environment
 * (`sk_sbox_…` is a sandbox key) under the account's prefix when it has one. Through our relay
 * (provider-http.ts), never Checkout.com's Node library (docs/connectors-checkout.md).
 */
export class CheckoutClient {
  constructor(private readonly options: ProviderConnectorOptions) {}

  /** The base URL of these credentials: the key's environment, under the account's prefix when given. */
  baseUrl(credentials: Record<string, string>): string {
    const sandbox = isSandboxKey(credentials.secret_key ?? '');
    const prefix = credentials.url_prefix?.trim();
    if (prefix) return checkoutPrefixedUrl(prefix, sandbox);
    return sandbox ? CHECKOUT_URLS.sandbox : CHECKOUT_URLS.live;
  }

  async call(
    credentials: Record<string, string>,
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    idempotencyKey: string | null = null,
  ): Promise<ProviderResponse> {
    const key = credentials.secret_key?.trim();
    if (!key) throw new ConnectorError('invalid_request', 'The Checkout.com payment service has no secret_key');
    const endpoint = endpointOf(
      this.options.baseUrls ?? {},
      CHECKOUT_CARD_DEFINITION.id,
      this.baseUrl(credentials),
      CHECKOUT_HOSTS,
      this.options.timeoutMs,
    );
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (idempotencyKey) headers['cko-idempotency-key'] = idempotencyKey;
    return providerRequest(endpoint, 'Checkout.com', method, path, headers, body);
  }
}

/** Sandbox secret keys start `sk_sbox_` (www.checkout.com/docs/developer-resources/api/manage-api-keys). */
export function isSandboxKey(key: string): boolean {
  return key.trim().startsWith('sk_sbox_');
}
