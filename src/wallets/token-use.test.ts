import { describe, expect, it } from 'vitest';
import { currencyNumber, currencyOfNumber } from '../lib/currency-numbers.ts';
import { CURRENCY_EXPONENTS } from '../lib/currencies.ts';
import { signedMessageDigest } from './google-pay.ts';
import { sandboxApplePayToken, sandboxGooglePayToken } from './sandbox-tokens.ts';
import { walletRefusal as refusal } from '../../test/helpers/wallet-refusal.ts';
import {
  approvedAmountProblem,
  encryptedWalletToken,
  PASSED_APPLE_TOKEN_LIFE_MS,
  PASSED_GOOGLE_TOKEN_LIFE_MS,
} from './token-use.ts';

const now = new Date('2030-01-01T00:00:00Z');

describe('happy', () => {
  it('an Apple token pays exactly the amount and currency it approved (minor units, ISO 4217 number)', () => {
    expect(approvedAmountProblem({ amount: 1200, currencyCode: '840' }, { amount: 1200, currency: 'USD' })).toBeNull();
    expect(approvedAmountProblem({ amount: 1200, currencyCode: '392' }, { amount: 1200, currency: 'JPY' })).toBeNull();
    // Leading zeros are not significant in a number: AUD is 036.
    expect(approvedAmountProblem({ amount: 500, currencyCode: '36' }, { amount: 500, currency: 'AUD' })).toBeNull();
    expect(approvedAmountProblem({ amount: 0, currencyCode: '978' }, { amount: 0, currency: 'EUR' })).toBeNull();
  });

  it('every currency we accept has an ISO 4217 number, and the number leads back to it', () => {
    for (const code of Object.keys(CURRENCY_EXPONENTS)) {
      expect(currencyNumber(code), code).toMatch(/^\d{3}$/);
      if (code !== 'ANG') expect(currencyOfNumber(currencyNumber(code)!), code).toBe(code);
    }
    expect(currencyOfNumber('532')).toBe('XCG');
  });

  it('an Apple token to pass on: its paymentData as JSON text, its transaction id in lowercase, kept a day', () => {
    const token = sandboxApplePayToken({ number: '4895370012003478', expirationDate: '12/30', amount: 100 }) as {
      paymentData: { header: { transactionId: string } };
    };
    const upper = {
      ...token,
      paymentData: {
        ...token.paymentData,
        header: { ...token.paymentData.header, transactionId: token.paymentData.header.transactionId.toUpperCase() },
      },
    };
    const passed = encryptedWalletToken('apple', upper, now);
    expect(JSON.parse(passed.token)).toEqual(upper.paymentData);
    expect(passed.tokenId).toBe(token.paymentData.header.transactionId.toLowerCase());
    expect(passed.usableUntil).toEqual(new Date(now.getTime() + PASSED_APPLE_TOKEN_LIFE_MS));
    // RSA_v1 is the payment service's business: passed on too.
    expect(encryptedWalletToken('apple', { ...token.paymentData, version: 'RSA_v1' }, now).tokenId).toBe(
      passed.tokenId,
    );
  });

  it('a Google token to pass on: as sent, named by the SHA-256 of its signed message, kept while its intermediate key is valid', () => {
    const token = sandboxGooglePayToken({ number: '4895370012003478', expirationDate: '12/30' }, now) as {
      signedMessage: string;
    };
    const text = JSON.stringify(token);
    const passed = encryptedWalletToken('google', text, now);
    expect(passed).toEqual({
      token: text,
      tokenId: signedMessageDigest(token.signedMessage),
      usableUntil: new Date(now.getTime() + 7 * 86_400_000),
    });
    expect(encryptedWalletToken('google', token, now)).toEqual({ ...passed, token: JSON.stringify(token) });
  });
});

describe('errors', () => {
  it('a mismatch states both amounts and currencies; a token without them is refused', () => {
    expect(approvedAmountProblem({ amount: 1000, currencyCode: '840' }, { amount: 1200, currency: 'USD' })).toMatch(
      /approved 10\.00 USD .* charges 12\.00 USD/,
    );
    expect(approvedAmountProblem({ amount: 1200, currencyCode: '978' }, { amount: 1200, currency: 'USD' })).toMatch(
      /approved 12\.00 EUR .* charges 12\.00 USD/,
    );
    expect(approvedAmountProblem({ amount: 0, currencyCode: '840' }, { amount: 1200, currency: 'USD' })).toMatch(
      /approved 0\.00 USD/,
    );
    expect(approvedAmountProblem({ amount: 5, currencyCode: '999' }, { amount: 5, currency: 'USD' })).toContain(
      '5 minor units of currency 999',
    );
    expect(approvedAmountProblem({ amount: null, currencyCode: null }, { amount: 5, currency: 'USD' })).toContain(
      'no valid transactionAmount and currencyCode',
    );
    expect(approvedAmountProblem({ amount: 1.5, currencyCode: '840' }, { amount: 1, currency: 'USD' })).toContain(
      'no valid transactionAmount',
    );
  });

  it("refuses tokens to pass on that are not of the wallet's shape, naming what is wrong", () => {
    expect(refusal(() => encryptedWalletToken('apple', 'text', now)).reason).toBe('malformed');
    expect(
      refusal(() =>
        encryptedWalletToken(
          'apple',
          { paymentData: { version: 'EC_v1', data: 'AA==', signature: 'AA==', header: { transactionId: 'abc' } } },
          now,
        ),
      ).message,
    ).toContain('transactionId');
    expect(
      refusal(() =>
        encryptedWalletToken('apple', { paymentData: { version: 'EC_v2', header: { transactionId: 'ab' } } }, now),
      ).reason,
    ).toBe('unsupported');
    expect(
      refusal(() =>
        encryptedWalletToken(
          'apple',
          { paymentData: { version: 'EC_v1', data: '', signature: 'AA==', header: { transactionId: 'ab' } } },
          now,
        ),
      ).message,
    ).toContain('paymentData.data');
    expect(refusal(() => encryptedWalletToken('google', '{not json', now)).message).toContain('not a JSON object');
    expect(
      refusal(() =>
        encryptedWalletToken('google', { protocolVersion: 'ECv1', signedMessage: 'x', signature: 'y' }, now),
      ).reason,
    ).toBe('unsupported');
    expect(
      refusal(() => encryptedWalletToken('google', { protocolVersion: 'ECv2', signature: 'y' }, now)).message,
    ).toContain('signedMessage');
    expect(
      refusal(() =>
        encryptedWalletToken('google', { protocolVersion: 'ECv2', signedMessage: 'x', signature: 'y' }, now),
      ).message,
    ).toContain('intermediateSigningKey');
  });

  it('bounds how long a Google token passed on is kept when its intermediate key claims an absurd life', () => {
    const token = {
      protocolVersion: 'ECv2',
      signedMessage: 'm',
      signature: 's',
      intermediateSigningKey: {
        signedKey: JSON.stringify({ keyExpiration: String(now.getTime() + 10 * 365 * 86_400_000) }),
        signatures: [],
      },
    };
    expect(encryptedWalletToken('google', token, now).usableUntil).toEqual(
      new Date(now.getTime() + PASSED_GOOGLE_TOKEN_LIFE_MS),
    );
  });
});
