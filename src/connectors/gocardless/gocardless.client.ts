import { ConnectorError } from '../connector.ts';
import {
  endpointOf,
  providerRequest,
  type ProviderConnectorOptions,
  type ProviderEndpoint,
  type ProviderResponse,
} from '../provider-http.ts';
import {
  GOCARDLESS_DEFINITION,
  GOCARDLESS_HOSTS,
  GOCARDLESS_URLS,
  GOCARDLESS_VERSION,
} from './gocardless.definition.ts';
import { httpError } from './gocardless.mapping.ts';

/**
 * GoCardless's API over HTTP, nothing else: the access token as a bearer token, the
 * `GoCardless-Version` header, and an `Idempotency-Key` on every create
 * (developer.gocardless.com/api-reference/#making-requests).
 */
export class GoCardlessClient {
  constructor(private readonly options: ProviderConnectorOptions) {}

  endpoint(credentials: Record<string, string>): ProviderEndpoint {
    const live = credentials.environment?.trim() === 'live';
    return endpointOf(
      this.options.baseUrls ?? {},
      GOCARDLESS_DEFINITION.id,
      live ? GOCARDLESS_URLS.live : GOCARDLESS_URLS.sandbox,
      GOCARDLESS_HOSTS,
      this.options.timeoutMs,
    );
  }

  /** One call. `idempotencyKey`: a repeated create answers 409 with the first one's id instead of acting twice. */
  call(
    credentials: Record<string, string>,
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    idempotencyKey: string | null = null,
  ): Promise<ProviderResponse> {
    if (!credentials.access_token)
      throw new ConnectorError('invalid_request', 'The GoCardless payment service has no access_token');
    const headers: Record<string, string> = {
      authorization: `Bearer ${credentials.access_token}`,
      'gocardless-version': GOCARDLESS_VERSION,
    };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    return providerRequest(this.endpoint(credentials), 'GoCardless', method, path, headers, body);
  }

  /** `GET` of one resource (`/payments/PM1` → its `payments` object); null on 404. */
  async resource<T>(credentials: Record<string, string>, kind: string, id: string): Promise<T | null> {
    const response = await this.call(credentials, 'GET', `/${kind}/${encodeURIComponent(id)}`, undefined);
    if (response.status === 404) return null;
    return bodyOf<Record<string, T>>(response)[kind] ?? null;
  }
}

/** A 2xx answer's body, or the `ConnectorError` of any other status. */
export function bodyOf<T>(response: ProviderResponse): T {
  if (response.status < 200 || response.status > 299) throw httpError(response.status, response.json);
  return (response.json ?? {}) as T;
}
