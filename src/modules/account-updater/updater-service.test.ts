import { describe, expect, it } from 'vitest';
import { detectScheme, luhnValid } from '../../lib/card-schemes.ts';
import { extendExpirationDate, inquire, replacementNumber } from './updater-service.ts';

describe('updater service', () => {
  it('gives 4111111111111111 an expiration date two years later', () => {
    expect(inquire({ number: '4111111111111111', expirationDate: '12/39' })).toEqual({
      outcome: 'expiration_date_updated',
      expirationDate: '12/41',
    });
    expect(extendExpirationDate('01/99', 2)).toBe('01/01');
    expect(extendExpirationDate('nope', 2)).toBeNull();
  });

  it('gives 5555555555554444 a different, Luhn-valid number of the same scheme and length', () => {
    const answer = inquire({ number: '5555555555554444', expirationDate: '12/39' });
    expect(answer.outcome).toBe('number_updated');
    const number = (answer as { number: string }).number;
    expect(number).not.toBe('5555555555554444');
    expect(number).toHaveLength(16);
    expect(luhnValid(number)).toBe(true);
    expect(detectScheme(number)).toBe('mastercard');
    expect(replacementNumber('378282246310005')).toMatch(/^378282\d{9}$/);
    expect(luhnValid(replacementNumber('378282246310005'))).toBe(true);
  });

  it('closes 378282246310005 and leaves every other card unchanged', () => {
    expect(inquire({ number: '378282246310005', expirationDate: '12/39' })).toEqual({ outcome: 'closed' });
    expect(inquire({ number: '4242424242424242', expirationDate: '12/39' })).toEqual({ outcome: 'no_change' });
    expect(inquire({ number: '4111111111111111', expirationDate: null })).toEqual({ outcome: 'no_change' });
  });
});
