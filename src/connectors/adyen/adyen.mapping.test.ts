import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import {
  avsOf,
  cvvOf,
  httpError,
  paymentStatusOf,
  refusalErrorCode,
  RESULT_CODE_STATUS,
  type AdyenResultCode,
} from './adyen.mapping.ts';

describe('happy', () => {
  it('maps every Adyen resultCode', () => {
    const expected: Record<AdyenResultCode, string> = {
      Authorised: 'authorized',
      Refused: 'declined',
      Cancelled: 'declined',
      RedirectShopper: 'buyer_approval_pending',
      IdentifyShopper: 'buyer_approval_pending',
      ChallengeShopper: 'buyer_approval_pending',
      PresentToShopper: 'buyer_approval_pending',
      Pending: 'pending',
      Received: 'pending',
      Error: 'failed',
      AuthenticationFinished: 'failed',
      AuthenticationNotRequired: 'failed',
      PartiallyAuthorised: 'failed',
    };
    expect(Object.keys(RESULT_CODE_STATUS).sort()).toEqual(Object.keys(expected).sort());
    for (const [code, status] of Object.entries(expected))
      expect(paymentStatusOf(code, 'authorize'), code).toBe(status);
    expect(paymentStatusOf('Authorised', 'capture')).toBe('captured');
  });

  it('maps refusal reasons, AVS and CVC results', () => {
    expect(refusalErrorCode('12', 'Refused')).toBe('insufficient_funds');
    expect(refusalErrorCode('6', 'Refused')).toBe('expired_card');
    expect(refusalErrorCode(undefined, 'Cancelled')).toBe('do_not_honor');
    expect(avsOf('7 Both postal code and address match')).toBe('match');
    expect(avsOf('2 Neither postal code nor address match')).toBe('no_match');
    expect(avsOf('5 No AVS data provided')).toBe('unavailable');
    expect(cvvOf('1 Matches')).toBe('match');
    expect(cvvOf('2 Does not match')).toBe('no_match');
    expect(cvvOf('6 No CVC/CVV provided')).toBe('not_provided');
    expect(
      [
        '0 Unknown',
        '1 Matches',
        '2 Does not match',
        '3 Not checked',
        '4 No CVC/CVV provided, but was required',
        '5 Issuer not certified for CVC/CVV',
        '6 No CVC/CVV provided',
      ].map(cvvOf),
    ).toEqual(['unavailable', 'match', 'no_match', 'unavailable', 'not_provided', 'unavailable', 'not_provided']);
    const avs: Record<string, string> = {
      match: '7 20 24',
      no_match: '2 11 26',
      partial_match_address: '1 13 19',
      partial_match_postcode: '6 12 14 21 22 23 25',
      unavailable: '0 3 4 5 15 16 17 18',
    };
    for (const [ours, codes] of Object.entries(avs))
      for (const code of codes.split(' ')) expect(avsOf(`${code} text`), code).toBe(ours);
  });
});

describe('errors', () => {
  it('never approves what it does not know', () => {
    expect(avsOf('9 Address matches, postal code unknown')).toBeNull();
    expect(refusalErrorCode('999', 'Refused')).toBe('do_not_honor');
    expect(avsOf(undefined)).toBeNull();
    expect(cvvOf('x')).toBeNull();
  });

  it('a resultCode newer than the table (or none) is an unknown outcome naming it, never a decline or failure', () => {
    for (const code of ['SomethingNew', undefined]) {
      const call = () => paymentStatusOf(code, 'authorize');
      expect(call).toThrow(ConnectorError);
      expect(call).toThrow(code ? /resultCode "SomethingNew".*left to reconciliation/ : /resultCode null/);
      try {
        call();
      } catch (error) {
        expect(error).toMatchObject({ kind: 'timeout' });
      }
    }
  });

  it("classifies HTTP errors, keeping Adyen's code", () => {
    expect(httpError(401, { errorCode: '000', message: 'Unauthorized' })).toMatchObject({
      kind: 'invalid_request',
      raw: { code: '000' },
    });
    expect(httpError(422, { errorCode: '167', message: 'x' })).toMatchObject({ kind: 'invalid_request' });
    expect(httpError(429, {})).toMatchObject({ kind: 'unavailable' });
    expect(httpError(503, null)).toMatchObject({ kind: 'timeout', raw: { code: '503' } });
  });
});

describe('security', () => {
  it('treats a partial authorization (never requested) as a failure, not an approval', () => {
    expect(paymentStatusOf('PartiallyAuthorised', 'capture')).toBe('failed');
  });
});
