import { describe, expect, it } from 'vitest';
import { avsOf, cvvOf, httpError, paymentStatusOf, refusalErrorCode } from './adyen.mapping.ts';

describe('happy', () => {
  it('maps every Adyen resultCode', () => {
    const expected: Record<string, string> = {
      Authorised: 'authorized', Refused: 'declined', Cancelled: 'declined', RedirectShopper: 'buyer_approval_pending', IdentifyShopper: 'buyer_approval_pending',
      ChallengeShopper: 'buyer_approval_pending', PresentToShopper: 'buyer_approval_pending', Pending: 'pending', Received: 'pending', Error: 'failed',
      AuthenticationFinished: 'failed', AuthenticationNotRequired: 'failed', PartiallyAuthorised: 'failed',
    };
    for (const [code, status] of Object.entries(expected)) expect(paymentStatusOf(code, 'authorize'), code).toBe(status);
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
  });
});

describe('errors', () => {
  it('never approves what it does not know', () => {
    expect(paymentStatusOf('SomethingNew', 'authorize')).toBe('failed');
    expect(refusalErrorCode('999', 'Refused')).toBe('do_not_honor');
    expect(avsOf(undefined)).toBeNull();
    expect(cvvOf('x')).toBeNull();
  });

  it('classifies HTTP errors, keeping Adyen\'s code', () => {
    expect(httpError(401, { errorCode: '000', message: 'Unauthorized' })).toMatchObject({ kind: 'invalid_request', raw: { code: '000' } });
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
