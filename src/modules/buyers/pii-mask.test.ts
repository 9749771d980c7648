import { describe, expect, it } from 'vitest';
import {
  maskAddress,
  maskBillingDetails,
  maskContactDetails,
  maskEmail,
  maskPhone,
  maskPostalCode,
  maskTaxIdValue,
  maskText,
} from './pii-mask.ts';

describe('happy', () => {
  it('masks names and lines to their first character', () => {
    expect(maskText('Ada')).toBe('A***');
    expect(maskText('A')).toBe('A***');
    // A whole code point, never half a surrogate pair.
    expect(maskText('𝒜lice')).toBe('𝒜***');
    expect(maskText('Élodie')).toBe('É***');
  });

  it('masks e-mail addresses, keeping the top-level domain', () => {
    expect(maskEmail('john.doe@example.com')).toBe('j***@e***.com');
    expect(maskEmail('ada@mail.example.co.uk')).toBe('a***@m***.uk');
    expect(maskEmail('root@localhost')).toBe('r***@l***');
    expect(maskEmail('not-an-address')).toBe('n***');
  });

  it('masks phone numbers to the last two digits', () => {
    expect(maskPhone('+447700900123')).toBe('+***23');
    expect(maskPhone('0207 946 0958')).toBe('***58');
    // Too short to show anything.
    expect(maskPhone('+1234')).toBe('+***');
  });

  it('masks postal codes to their start', () => {
    expect(maskPostalCode('94107')).toBe('94***');
    expect(maskPostalCode('SW1A 1AA')).toBe('SW***');
    expect(maskPostalCode('1010')).toBe('1***');
  });

  it('masks tax id values to the last two characters of long values', () => {
    expect(maskTaxIdValue('GB123456789')).toBe('***89');
    expect(maskTaxIdValue('12345')).toBe('***');
  });

  it('keeps null and absent values as they are', () => {
    expect(maskText(null)).toBeNull();
    expect(maskEmail(undefined)).toBeUndefined();
    expect(maskAddress(null)).toBeNull();
    expect(maskBillingDetails(null)).toBeNull();
    expect(maskContactDetails({})).toEqual({
      first_name: undefined,
      last_name: undefined,
      email_address: undefined,
      phone_number: undefined,
      address: undefined,
    });
  });

  it('masks an address, keeping country, subdivision code and unknown keys', () => {
    const address = {
      city: 'London',
      country: 'GB',
      postal_code: 'SW1A 1AA',
      state: 'Greater London',
      state_code: 'GB-LND',
      house_number_or_name: '10',
      line1: 'Downing Street',
      line2: null,
      organization: 'Acme Ltd',
    };
    expect(maskAddress(address)).toEqual({
      city: 'L***',
      country: 'GB',
      postal_code: 'SW***',
      state: 'G***',
      state_code: 'GB-LND',
      house_number_or_name: '1***',
      line1: 'D***',
      line2: null,
      organization: 'A***',
    });
  });

  it('masks billing details, keeping the tax id kind, and contact details, keeping ids', () => {
    const billing = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email_address: 'ada@example.com',
      phone_number: '+447700900123',
      address: { line1: '12 Analytical Row', country: 'GB' },
      tax_id: { value: 'GB123456789', kind: 'gb.vat' },
    };
    expect(maskBillingDetails(billing)).toEqual({
      first_name: 'A***',
      last_name: 'L***',
      email_address: 'a***@e***.com',
      phone_number: '+***23',
      address: {
        line1: '1***',
        country: 'GB',
        city: undefined,
        postal_code: undefined,
        state: undefined,
        house_number_or_name: undefined,
        line2: undefined,
        organization: undefined,
      },
      tax_id: { value: '***89', kind: 'gb.vat' },
    });
    const shipping = {
      type: 'shipping-details',
      id: 'sd-1',
      buyer_id: 'b-1',
      first_name: 'Ada',
      last_name: null,
      email_address: null,
      phone_number: null,
      address: null,
    };
    expect(maskContactDetails(shipping)).toEqual({ ...shipping, first_name: 'A***' });
  });
});

describe('errors', () => {
  it('never returns a masked value that contains the original beyond what the rule shows', () => {
    const values = ['Alexander', 'alexander.hamilton@treasury.gov', '+12025550143', 'W1J 7NT', 'DE123456789'];
    const masked = [
      maskText(values[0]),
      maskEmail(values[1]),
      maskPhone(values[2]),
      maskPostalCode(values[3]),
      maskTaxIdValue(values[4]!),
    ];
    for (const [i, value] of masked.entries()) {
      expect(value).not.toBe(values[i]);
      expect(value!.length).toBeLessThanOrEqual(16);
      expect(value).toContain('***');
    }
  });
});
