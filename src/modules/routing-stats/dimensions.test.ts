import { describe, expect, it } from 'vitest';
import { dimensionKeys } from './dimensions.ts';

describe('dimensionKeys', () => {
  it('lists the keys from the most specific to the service overall, unknown facts as -', () => {
    const facts = { scheme: 'visa', currency: 'USD', country: 'US', cardType: null, issuerCountry: 'US' };
    expect(dimensionKeys(facts)).toEqual([
      'scheme=visa,currency=USD,country=US,card_type=-,issuer_country=US',
      'scheme=visa,currency=USD,country=US',
      'scheme=visa,currency=USD',
      'currency=USD',
      '*',
    ]);
    // Cached: the same facts give the same list, without building it again.
    expect(dimensionKeys({ ...facts })).toBe(dimensionKeys(facts));
  });
});
