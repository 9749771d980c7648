import { describe, expect, it } from 'vitest';
import type { ConnectorDefinition } from '../../connectors/connector.ts';
import { MOCK_CARD_DEFINITION } from '../../connectors/mock/mock-card.connector.ts';
import { selectPaymentOptions, type OptionCandidate } from './payment-options.ts';

const definition = (overrides: Partial<ConnectorDefinition>): ConnectorDefinition => ({
  ...MOCK_CARD_DEFINITION,
  ...overrides,
});
const candidate = (overrides: Partial<OptionCandidate> = {}): OptionCandidate => ({
  method: 'card',
  acceptedCurrencies: ['USD', 'EUR'],
  acceptedCountries: ['US'],
  tokenizationEnabled: false,
  definition: MOCK_CARD_DEFINITION,
  ...overrides,
});
const any = { currency: null, country: null, cartItemCount: null };
const merchant = { id: 'shop', name: 'The Shop' };

describe('selectPaymentOptions', () => {
  it('offers a card option without context; cards can be stored and captured later', () => {
    expect(selectPaymentOptions([candidate()], any, merchant)).toEqual([
      {
        type: 'payment-option',
        method: 'card',
        mode: 'card',
        label: 'Card',
        icon_url: null,
        can_store_payment_method: true,
        can_delay_capture: true,
        context: null,
      },
    ]);
  });

  it('filters by currency and country (a service listing no countries takes any)', () => {
    expect(selectPaymentOptions([candidate()], { ...any, currency: 'GBP' }, merchant)).toEqual([]);
    expect(selectPaymentOptions([candidate()], { ...any, country: 'DE' }, merchant)).toEqual([]);
    expect(
      selectPaymentOptions(
        [candidate({ acceptedCountries: [] })],
        { ...any, country: 'DE', currency: 'EUR' },
        merchant,
      ),
    ).toHaveLength(1);
  });

  it('keeps one option per method, the first by position', () => {
    const paypal = definition({
      id: 'mock-paypal',
      mode: 'redirect',
      method: 'paypal',
      displayName: 'PayPal',
      iconUrl: 'https://x.example/paypal.svg',
    });
    const options = selectPaymentOptions(
      [candidate(), candidate({ acceptedCurrencies: ['USD'] }), candidate({ method: 'paypal', definition: paypal })],
      any,
      merchant,
    );
    expect(options.map((o) => [o.method, o.label, o.icon_url])).toEqual([
      ['card', 'Card', null],
      ['paypal', 'PayPal', 'https://x.example/paypal.svg'],
    ]);
  });

  it('gives redirect, wallet and Google Pay options their contexts', () => {
    const redirect = definition({
      mode: 'redirect',
      configuration: {
        ...MOCK_CARD_DEFINITION.configuration,
        approval_ui_target: 'new_window',
        approval_ui_height: '600px',
        approval_ui_width: '',
      },
    });
    const [r, a, g] = selectPaymentOptions(
      [
        candidate({ method: 'paypal', definition: redirect }),
        candidate({ method: 'applepay', definition: definition({ mode: 'applepay' }) }),
        candidate({ method: 'googlepay', definition: definition({ mode: 'googlepay' }) }),
      ],
      any,
      merchant,
    );
    expect(r).toMatchObject({
      mode: 'redirect',
      can_delay_capture: false,
      can_store_payment_method: false,
      context: {
        approval_ui: { height: '600px', width: null },
        redirect_requires_popup: true,
        requires_tokenized_redirect_popup: false,
      },
    });
    expect(a).toMatchObject({
      label: 'Apple Pay',
      can_delay_capture: true,
      context: { merchant_name: 'The Shop', supported_schemes: expect.arrayContaining(['visa']) },
    });
    expect(g!.context).toEqual({
      merchant_name: 'The Shop',
      supported_schemes: expect.arrayContaining(['mastercard']),
      gateway: 'svc',
      gateway_merchant_id: 'shop',
    });
  });

  it('can store a non-card method only at a service with tokenization', () => {
    const redirect = definition({ mode: 'redirect' });
    expect(
      selectPaymentOptions(
        [candidate({ method: 'paypal', definition: redirect, tokenizationEnabled: true })],
        any,
        merchant,
      )[0]!.can_store_payment_method,
    ).toBe(true);
  });

  it('honours the definition cart rules', () => {
    const strict = definition({
      configuration: { ...MOCK_CARD_DEFINITION.configuration, cart_items_required: true, cart_items_limit: 2 },
    });
    expect(selectPaymentOptions([candidate({ definition: strict })], any, merchant)).toEqual([]);
    expect(selectPaymentOptions([candidate({ definition: strict })], { ...any, cartItemCount: 3 }, merchant)).toEqual(
      [],
    );
    expect(
      selectPaymentOptions([candidate({ definition: strict })], { ...any, cartItemCount: 2 }, merchant),
    ).toHaveLength(1);
  });
});
