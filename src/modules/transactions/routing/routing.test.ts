import { describe, expect, it } from 'vitest';
import {
  networkTokenRefusal,
  noRouteMessage,
  route,
  walletTokenRefusal,
  type RoutingCandidate,
  type RoutingRequest,
} from './routing.ts';

const candidate = (id: string, overrides: Partial<RoutingCandidate> = {}): RoutingCandidate => ({
  id,
  definitionId: 'mock-card',
  method: 'card',
  displayName: id,
  acceptedCurrencies: ['USD', 'EUR'],
  acceptedCountries: ['US', 'DE'],
  active: true,
  position: 1,
  ...overrides,
});
const request = (overrides: Partial<RoutingRequest> = {}): RoutingRequest => ({
  method: 'card',
  currency: 'USD',
  country: 'US',
  forcedServiceId: null,
  knownDefinitions: new Set(['mock-card']),
  ...overrides,
});

describe('happy', () => {
  it('picks the first eligible service by position, whatever the input order', () => {
    const trace = route(
      [candidate('c', { position: 3 }), candidate('a', { position: 1 }), candidate('b', { position: 2 })],
      request(),
    );
    expect(trace).toEqual({
      rule: 'first-eligible-by-position',
      eligible: ['a', 'b', 'c'],
      skipped: [],
      selected: 'a',
    });
  });

  it('keeps the given order between services of the same position', () => {
    expect(route([candidate('x', { position: 1 }), candidate('y', { position: 1 })], request()).selected).toBe('x');
  });

  it('skips inactive services and says so in the trace', () => {
    const trace = route([candidate('a', { active: false, position: 1 }), candidate('b', { position: 2 })], request());
    expect(trace).toEqual({
      rule: 'first-eligible-by-position',
      eligible: ['b'],
      skipped: [{ payment_service_id: 'a', reason: 'inactive' }],
      selected: 'b',
    });
  });

  it('filters by currency and by country; an empty country list accepts every country', () => {
    const trace = route(
      [
        candidate('eur-only', { acceptedCurrencies: ['EUR'] }),
        candidate('de-only', { acceptedCountries: ['DE'], position: 2 }),
        candidate('anywhere', { acceptedCountries: [], position: 3 }),
      ],
      request(),
    );
    expect(trace.skipped).toEqual([
      { payment_service_id: 'eur-only', reason: 'currency_not_accepted' },
      { payment_service_id: 'de-only', reason: 'country_not_accepted' },
    ]);
    expect(trace.selected).toBe('anywhere');
  });

  it('does not filter by country when the transaction has none', () => {
    expect(route([candidate('de-only', { acceptedCountries: ['DE'] })], request({ country: null })).selected).toBe(
      'de-only',
    );
  });

  it('skips a service of another method and one without a connector in this process', () => {
    const trace = route(
      [
        candidate('paypal', { method: 'paypal' }),
        candidate('gone', { definitionId: 'unknown-psp', position: 2 }),
        candidate('ok', { position: 3 }),
      ],
      request(),
    );
    expect(trace.skipped).toEqual([
      { payment_service_id: 'paypal', reason: 'method_not_supported' },
      { payment_service_id: 'gone', reason: 'no_connector' },
    ]);
    expect(trace.selected).toBe('ok');
  });

  it("an encrypted wallet token goes only to services whose connector decrypts that wallet's tokens", () => {
    const walletToken = { provider: 'apple' as const, acceptedBy: new Set(['mock-card']) };
    const known = new Set(['mock-card', 'stripe-card']);
    const trace = route(
      [candidate('stripe', { definitionId: 'stripe-card' }), candidate('mock', { position: 2 })],
      request({ knownDefinitions: known, walletToken }),
    );
    expect(trace).toEqual({
      rule: 'first-eligible-by-position',
      eligible: ['mock'],
      skipped: [{ payment_service_id: 'stripe', reason: 'encrypted_wallet_token_not_accepted' }],
      selected: 'mock',
    });
    expect(walletTokenRefusal({ walletToken }, trace)).toBeNull();
    // A card (no wallet token) is not filtered so.
    expect(
      route([candidate('stripe', { definitionId: 'stripe-card' })], request({ knownDefinitions: known })).selected,
    ).toBe('stripe');
  });

  it('a network token goes only to services whose connector takes network tokens, and the refusal says so', () => {
    const networkToken = { acceptedBy: new Set(['mock-card']) };
    const known = new Set(['mock-card', 'adyen-card']);
    const trace = route(
      [candidate('adyen', { definitionId: 'adyen-card' }), candidate('mock', { position: 2 })],
      request({ knownDefinitions: known, networkToken }),
    );
    expect(trace).toEqual({
      rule: 'first-eligible-by-position',
      eligible: ['mock'],
      skipped: [{ payment_service_id: 'adyen', reason: 'network_tokens_not_supported' }],
      selected: 'mock',
    });
    const none = route(
      [candidate('adyen', { definitionId: 'adyen-card' })],
      request({ knownDefinitions: known, networkToken }),
    );
    expect(none.selected).toBeNull();
    expect(networkTokenRefusal({ networkToken }, none)).toContain(
      'do not take network tokens. Add a payment service whose connector does (mock-card)',
    );
    expect(noRouteMessage({ ...request({ knownDefinitions: known }), networkToken }, none)).toBe(
      networkTokenRefusal({ networkToken }, none),
    );
  });

  it('a forced service wins over position and only it is considered', () => {
    const trace = route(
      [candidate('a', { position: 1 }), candidate('b', { position: 2 })],
      request({ forcedServiceId: 'b' }),
    );
    expect(trace).toEqual({ rule: 'forced-payment-service', eligible: ['b'], skipped: [], selected: 'b' });
  });
});

describe('errors', () => {
  it('selects nothing when no service can take the transaction, with the reason of each', () => {
    const trace = route(
      [candidate('a', { active: false }), candidate('b', { acceptedCurrencies: ['EUR'] })],
      request(),
    );
    expect(trace).toEqual({
      rule: 'first-eligible-by-position',
      eligible: [],
      skipped: [
        { payment_service_id: 'a', reason: 'inactive' },
        { payment_service_id: 'b', reason: 'currency_not_accepted' },
      ],
      selected: null,
    });
    expect(noRouteMessage(request(), trace)).toBe(
      'No active payment service accepts method card in USD for country US; configure one with POST /payment-services',
    );
    expect(noRouteMessage(request({ country: null }), trace)).toBe(
      'No active payment service accepts method card in USD; configure one with POST /payment-services',
    );
  });

  it('says when an encrypted wallet token is why nothing was selected, and what to do', () => {
    const walletToken = { provider: 'google' as const, acceptedBy: new Set(['mock-card', 'adyen-card']) };
    const req = request({ knownDefinitions: new Set(['stripe-card']), walletToken });
    const trace = route([candidate('stripe', { definitionId: 'stripe-card' })], req);
    expect(trace.selected).toBeNull();
    const message =
      "No payment service can take this Google Pay token: the google wallet passes its tokens on encrypted (token_decryption payment-service), and the connectors of the eligible services cannot decrypt Google Pay tokens. Add a payment service whose connector can (adyen-card, mock-card), or set the wallet's token_decryption to server so that this server decrypts the tokens";
    expect(noRouteMessage(req, trace)).toBe(message);
    // Skipped for other reasons only: the usual message.
    const other = route([candidate('eur', { definitionId: 'stripe-card', acceptedCurrencies: ['EUR'] })], req);
    expect(walletTokenRefusal(req, other)).toBeNull();
    expect(noRouteMessage(req, other)).toContain('No active payment service accepts method card in USD');
  });

  it('selects nothing without candidates', () => {
    expect(route([], request())).toEqual({
      rule: 'first-eligible-by-position',
      eligible: [],
      skipped: [],
      selected: null,
    });
  });

  it('does not fall back to another service when the forced one cannot take the transaction', () => {
    const trace = route(
      [candidate('a'), candidate('b', { active: false, position: 2 })],
      request({ forcedServiceId: 'b' }),
    );
    expect(trace).toEqual({
      rule: 'forced-payment-service',
      eligible: [],
      skipped: [{ payment_service_id: 'b', reason: 'inactive' }],
      selected: null,
    });
    expect(noRouteMessage(request({ forcedServiceId: 'b' }), trace)).toBe(
      'The payment service b cannot process this transaction (inactive)',
    );
  });

  it('says when the forced service does not exist', () => {
    const trace = route([candidate('a')], request({ forcedServiceId: 'missing' }));
    expect(trace.selected).toBeNull();
    expect(noRouteMessage(request({ forcedServiceId: 'missing' }), trace)).toBe(
      'The payment service missing could not be found',
    );
  });
});
