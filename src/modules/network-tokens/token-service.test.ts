import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectScheme, luhnCheckDigit, luhnValid, TEST_CARDS } from '../../lib/card-schemes.ts';
import {
  createCryptogram,
  provisionToken,
  supportsScheme,
  TOKEN_BIN_RANGES,
  UnsupportedSchemeError,
} from './token-service.ts';

const now = new Date('2026-03-15T00:00:00Z');
const seed = (n: number) => new Uint8Array(16).fill(n);

describe('token service', () => {
  it('keeps every token BIN range inside its own scheme', () => {
    for (const [scheme, range] of Object.entries(TOKEN_BIN_RANGES)) {
      const length = scheme === 'amex' ? 15 : 16;
      expect(detectScheme(range.padEnd(length, '0'))).toBe(scheme);
      expect(supportsScheme(scheme)).toBe(true);
    }
    expect(supportsScheme('jcb')).toBe(false);
  });

  it('issues a different, Luhn-valid number of the same scheme and length, in the token range', () => {
    for (const pan of [
      '4111111111111111',
      '4012888888881881',
      '5555555555554444',
      '2223003122003222',
      '378282246310005',
      '6011111111111117',
      '4222222222222',
    ]) {
      const { token, scheme } = provisionToken({ pan, expirationDate: '12/30', seed: seed(1), now });
      expect(token).not.toBe(pan);
      expect(luhnValid(token)).toBe(true);
      expect(token).toHaveLength(pan.length);
      expect(detectScheme(token)).toBe(detectScheme(pan));
      expect(token.startsWith(TOKEN_BIN_RANGES[scheme]!)).toBe(true);
    }
  });

  it('is deterministic in its seed, and different seeds give different tokens', () => {
    const pan = '4111111111111111';
    const a = provisionToken({ pan, expirationDate: '12/30', seed: seed(1), now }).token;
    expect(provisionToken({ pan, expirationDate: '12/30', seed: seed(1), now }).token).toBe(a);
    expect(provisionToken({ pan, expirationDate: '12/30', seed: seed(2), now }).token).not.toBe(a);
  });

  it('never returns the card number, even for a card inside the token range', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.stringMatching(/^\d{9}$/), (bytes, digits) => {
        const body = `489537${digits}`;
        const pan = body + luhnCheckDigit(body);
        const { token } = provisionToken({ pan, expirationDate: null, seed: bytes, now });
        return token !== pan && luhnValid(token) && token.length === 16 && detectScheme(token) === 'visa';
      }),
    );
  });

  it("keeps the card's expiry, else three years from now", () => {
    expect(
      provisionToken({ pan: '4111111111111111', expirationDate: '04/29', seed: seed(1), now }).expirationDate,
    ).toBe('04/29');
    expect(provisionToken({ pan: '4111111111111111', expirationDate: null, seed: seed(1), now }).expirationDate).toBe(
      '03/29',
    );
  });

  it('refuses schemes without a token range', () => {
    const jcb = TEST_CARDS.find((card) => detectScheme(card.number) === 'jcb')?.number ?? '3530111333300000';
    expect(() => provisionToken({ pan: jcb, expirationDate: null, seed: seed(1), now })).toThrow(
      UnsupportedSchemeError,
    );
  });

  it('issues 28-character base64 cryptograms, one per nonce, with the ECI of the initiator', () => {
    const token = provisionToken({ pan: '4111111111111111', expirationDate: null, seed: seed(1), now }).token;
    const cit = createCryptogram({ token, nonce: seed(3), merchantInitiated: false });
    expect(cit.cryptogram).toMatch(/^[A-Za-z0-9+/]{27}=$/);
    expect(cit.eci).toBe('05');
    expect(createCryptogram({ token, nonce: seed(3), merchantInitiated: false })).toEqual(cit);
    expect(createCryptogram({ token, nonce: seed(4), merchantInitiated: false }).cryptogram).not.toBe(cit.cryptogram);
    expect(createCryptogram({ token, nonce: seed(3), merchantInitiated: true }).eci).toBe('07');
  });
});
