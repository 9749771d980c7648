import { describe, expect, it } from 'vitest';
import { STANDARD_ERROR_CODES } from '../error-codes.ts';
import { avsOf, cvvOf, errorCodeOf, refundStatusOf } from './stripe.mapping.ts';

describe('happy', () => {
  it('maps decline codes before error codes, onto the standardized set', () => {
    expect(errorCodeOf('insufficient_funds', 'card_declined')).toBe('insufficient_funds');
    expect(errorCodeOf(null, 'expired_card')).toBe('expired_card');
    expect(errorCodeOf('stolen_card', 'card_declined')).toBe('lost_or_stolen_card');
    expect(errorCodeOf(null, 'incorrect_cvc')).toBe('incorrect_cvv');
    for (const code of ['generic_decline', 'fraudulent', 'try_again_later', 'authentication_required']) expect(STANDARD_ERROR_CODES).toContain(errorCodeOf(code, null));
  });

  it('maps CVC and address checks', () => {
    expect([cvvOf('pass'), cvvOf('fail'), cvvOf('unavailable'), cvvOf('unchecked'), cvvOf(null)]).toEqual(['match', 'no_match', 'unavailable', 'not_provided', 'not_provided']);
    expect(avsOf('pass', 'pass')).toBe('match');
    expect(avsOf('pass', 'fail')).toBe('partial_match_address');
    expect(avsOf('fail', 'pass')).toBe('partial_match_postcode');
    expect(avsOf('fail', 'fail')).toBe('no_match');
    expect(avsOf('unavailable', null)).toBe('unavailable');
    expect(avsOf(null, null)).toBeNull();
  });

  it('maps refund statuses', () => {
    expect(['succeeded', 'pending', 'requires_action', 'failed', 'canceled'].map(refundStatusOf)).toEqual(['succeeded', 'processing', 'processing', 'failed', 'failed']);
  });
});

describe('errors', () => {
  it('an unknown code is do_not_honor, never a guess', () => {
    expect(errorCodeOf('something_new', 'card_declined_in_2030')).toBe('do_not_honor');
  });
});
