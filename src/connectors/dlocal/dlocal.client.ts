import { ConnectorError } from '../connector.ts';
import {
  endpointOf,
  providerRequest,
  RawBody,
  type ProviderConnectorOptions,
  type ProviderEndpoint,
  type ProviderResponse,
} from '../provider-http.ts';
import { DLOCAL_HOSTS, DLOCAL_PIX_DEFINITION, DLOCAL_URLS } from './dlocal.definition.ts';
import { httpError } from './dlocal.mapping.ts';
import { authorizationHeader, dlocalSignature } from './dlocal.signature.ts';

/**
 * dLocal's Payins API over HTTP, nothing else: every request carries X-Date, X-Login, X-Trans-Key,
 * X-Version 2.1 and the V2-HMAC-SHA256 signature of `X-Login + X-Date + body` (the body sent as the
 * exact bytes signed, `RawBody`). Through the SSRF-checked relay (provider-http.ts).
 */
export class DlocalClient {
  constructor(private readonly options: ProviderConnectorOptions) {}

  endpoint(credentials: Record<string, string>): ProviderEndpoint {
    const live = credentials.environment?.trim() === 'live';
    return endpointOf(
      this.options.baseUrls ?? {},
      DLOCAL_PIX_DEFINITION.id,
      live ? DLOCAL_URLS.live : DLOCAL_URLS.sandbox,
      DLOCAL_HOSTS,
      this.options.timeoutMs,
    );
  }

  async call(
    credentials: Record<string, string>,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<ProviderResponse> {
    const login = credentials.x_login?.trim();
    if (!login || !credentials.x_trans_key || !credentials.secret_key)
      throw new ConnectorError(
        'invalid_request',
        'The dLocal payment service has no x_login, x_trans_key or secret_key',
      );
    const text = body === undefined ? '' : JSON.stringify(body);
    const date = new Date().toISOString();
    const headers = {
      'x-date': date,
      'x-login': login,
      'x-trans-key': credentials.x_trans_key,
      'x-version': '2.1',
      authorization: authorizationHeader(dlocalSignature(credentials.secret_key, login, date, text)),
    };
    return providerRequest(
      this.endpoint(credentials),
      'dLocal',
      method,
      path,
      headers,
      body === undefined ? undefined : new RawBody(text, 'application/json'),
    );
  }
}

/** A 2xx answer's body, or the `ConnectorError` of any other status. */
export function bodyOf<T>(response: ProviderResponse): T {
  if (response.status < 200 || response.status > 299) throw httpError(response.status, response.json);
  return (response.json ?? {}) as T;
}
