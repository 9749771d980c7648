import { createHash } from 'node:crypto';
import { ConnectorError } from '../connector.ts';
import {
  endpointOf,
  providerRequest,
  RawBody,
  type ProviderConnectorOptions,
  type ProviderEndpoint,
  type ProviderResponse,
} from '../provider-http.ts';
import { PAYPAL_DEFINITION, PAYPAL_HOSTS, PAYPAL_URLS } from './paypal.definition.ts';
import { httpError } from './paypal.mapping.ts';

/**
 * PayPal's REST API over HTTP, nothing else: OAuth 2.0 client credentials (`POST /v1/oauth2/token`,
 * the access token kept until shortly before it expires), the bearer token on every call, and the
 * `PayPal-Request-Id` header (PayPal's idempotency key) on every POST that can move money.
 */

/** Tokens kept (client id + secret digest + host → token); bounded, safe to lose (STYLE D7). */
const MAX_TOKENS = 200;
/** A token is renewed this long before PayPal's `expires_in` ends, so no call carries one that expires on the way. */
const TOKEN_MARGIN_MS = 60_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

export class PaypalClient {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(private readonly options: ProviderConnectorOptions) {}

  endpoint(credentials: Record<string, string>): ProviderEndpoint {
    const live = credentials.environment?.trim() === 'live';
    return endpointOf(
      this.options.baseUrls ?? {},
      PAYPAL_DEFINITION.id,
      live ? PAYPAL_URLS.live : PAYPAL_URLS.sandbox,
      PAYPAL_HOSTS,
      this.options.timeoutMs,
    );
  }

  /** `POST /v1/oauth2/token` as PayPal answers it (credential verification reads the status). */
  tokenResponse(credentials: Record<string, string>): Promise<ProviderResponse> {
    const basic = Buffer.from(`${credentials.client_id ?? ''}:${credentials.client_secret ?? ''}`).toString('base64');
    return providerRequest(
      this.endpoint(credentials),
      'PayPal',
      'POST',
      '/v1/oauth2/token',
      { authorization: `Basic ${basic}` },
      new RawBody('grant_type=client_credentials', 'application/x-www-form-urlencoded'),
    );
  }

  private cacheKey(credentials: Record<string, string>): string {
    const secret = createHash('sha256')
      .update(credentials.client_secret ?? '')
      .digest('hex');
    return `${this.endpoint(credentials).baseUrl}|${credentials.client_id ?? ''}|${secret}`;
  }

  private async token(credentials: Record<string, string>): Promise<string> {
    if (!credentials.client_id || !credentials.client_secret)
      throw new ConnectorError('invalid_request', 'The PayPal payment service has no client_id or client_secret');
    const key = this.cacheKey(credentials);
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > Date.now()) return cached.token;
    const response = await this.tokenResponse(credentials);
    const body = (response.json ?? {}) as { access_token?: string; expires_in?: number };
    if (response.status !== 200 || !body.access_token) throw httpError(response.status, response.json);
    const seconds = typeof body.expires_in === 'number' ? body.expires_in : 0;
    if (this.tokens.size >= MAX_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
    this.tokens.set(key, { token: body.access_token, expiresAt: Date.now() + seconds * 1000 - TOKEN_MARGIN_MS });
    return body.access_token;
  }

  /**
   * One call with a bearer token. `requestId`: the PayPal-Request-Id (a retry with the same id gets
   * PayPal's first answer instead of acting twice). A 401 with a kept token (revoked or expired
   * early) is retried once with a new token and the same request id, so it cannot act twice.
   */
  async call(
    credentials: Record<string, string>,
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    requestId: string | null = null,
  ): Promise<ProviderResponse> {
    const send = async () => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${await this.token(credentials)}`,
        prefer: 'return=representation',
      };
      if (requestId) headers['paypal-request-id'] = requestId;
      return providerRequest(this.endpoint(credentials), 'PayPal', method, path, headers, body);
    };
    const first = await send();
    if (first.status !== 401) return first;
    this.tokens.delete(this.cacheKey(credentials));
    return send();
  }
}

/** A 2xx answer's body, or the `ConnectorError` of any other status. */
export function bodyOf<T>(response: ProviderResponse): T {
  if (response.status < 200 || response.status > 299) throw httpError(response.status, response.json);
  return (response.json ?? {}) as T;
}
