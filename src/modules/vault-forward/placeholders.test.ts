import { describe, expect, it } from 'vitest';
import { fillPlaceholders, maskCardNumbers, PlaceholderError, placeholdersOf, type ForwardCard } from './placeholders.ts';

const visa: ForwardCard = { number: '4111111111111111', expirationDate: '07/30', holderName: 'Ada "The" Lovelace', securityCode: null };
const mc: ForwardCard = { number: '5555555555554444', expirationDate: '12/29', holderName: null, securityCode: '123' };

describe('fillPlaceholders', () => {
  it('replaces both forms and the finer expiry forms, by position', () => {
    const body = JSON.stringify({ a: '{{CARD_NUMBER_1}}', b: '{{ CARD_NUMBER_2 }}', exp: '{{CARD_EXPIRATION_DATE_1}}', m: '{{CARD_EXPIRATION_MONTH_1}}', ms: '{{ CARD_EXPIRATION_MONTH_SHORT_1 }}', y: '{{CARD_EXPIRATION_YEAR_2}}', ys: '{{CARD_EXPIRATION_YEAR_SHORT_2}}', cvv: '{{CARD_SECURITY_CODE_2}}', name: '{{CARD_HOLDER_NAME_1}}' });
    expect(JSON.parse(fillPlaceholders(body, [visa, mc]))).toEqual({ a: visa.number, b: mc.number, exp: '07/30', m: '07', ms: '7', y: '2029', ys: '29', cvv: '123', name: 'Ada "The" Lovelace' });
  });

  it('refuses unknown placeholders, indexes without a payment method, and data that is not there', () => {
    expect(() => placeholdersOf('{"x":"{{CARD_NUMBR_1}}"}', 1)).toThrow(/Unknown placeholder \{\{CARD_NUMBR_1\}\}/);
    expect(() => placeholdersOf('{"x":"{{CARD_NUMBER_2}}"}', 1)).toThrow(/names payment method 2, but x-vault-forward-payment-methods lists 1/);
    expect(() => placeholdersOf('{"x":"{{CARD_NUMBER_0}}"}', 1)).toThrow(PlaceholderError);
    expect(() => fillPlaceholders('{"x":"{{CARD_SECURITY_CODE_1}}"}', [visa])).toThrow(/x-vault-forward-checkout-session/);
    expect(() => fillPlaceholders('{"x":"{{CARD_HOLDER_NAME_2}}"}', [visa, mc])).toThrow(/no cardholder name/);
  });

  it('leaves a body without placeholders as it is', () => {
    expect(fillPlaceholders('{"amount": 100, "text": "{ not one }"}', [])).toBe('{"amount": 100, "text": "{ not one }"}');
  });
});

describe('maskCardNumbers', () => {
  it('masks every echo of a forwarded card number', () => {
    expect(maskCardNumbers(`got ${visa.number} and ${visa.number}`, [visa])).toBe('got 411111******1111 and 411111******1111');
  });
});
