import { ConnectorError } from '../connector.ts';
import { endpointOf, providerRequest, type ProviderConnectorOptions } from '../provider-http.ts';
import {
  BRAINTREE_CARD_DEFINITION,
  BRAINTREE_HOSTS,
  BRAINTREE_URLS,
  BRAINTREE_VERSION,
} from './braintree.definition.ts';

/** One GraphQL error (`errors[]`). */
export interface GraphQlError {
  message?: string;
  extensions?: { errorClass?: string; legacyCode?: string };
}

export interface GraphQlAnswer<T> {
  status: number;
  data: T | null;
  errors: GraphQlError[];
}

/**
 * Braintree's GraphQL API over HTTP, nothing else: Basic authentication with the public and
 * private keys, the `Braintree-Version` header, the sandbox or production endpoint.
 */
export class BraintreeClient {
  constructor(private readonly options: ProviderConnectorOptions) {}

  async call<T>(
    credentials: Record<string, string>,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<GraphQlAnswer<T>> {
    const { public_key: publicKey, private_key: privateKey } = credentials;
    if (!publicKey || !privateKey)
      throw new ConnectorError('invalid_request', 'The Braintree payment service has no public_key or private_key');
    const url = credentials.environment === 'production' ? BRAINTREE_URLS.production : BRAINTREE_URLS.sandbox;
    const endpoint = endpointOf(
      this.options.baseUrls ?? {},
      BRAINTREE_CARD_DEFINITION.id,
      url,
      BRAINTREE_HOSTS,
      this.options.timeoutMs,
    );
    const headers = {
      authorization: `Basic ${Buffer.from(`${publicKey}:${privateKey}`).toString('base64')}`,
      'braintree-version': BRAINTREE_VERSION,
    };
    const response = await providerRequest(endpoint, 'Braintree', 'POST', '', headers, { query, variables });
    const body = (response.json ?? {}) as { data?: T | null; errors?: GraphQlError[] };
    return { status: response.status, data: body.data ?? null, errors: body.errors ?? [] };
  }
}
