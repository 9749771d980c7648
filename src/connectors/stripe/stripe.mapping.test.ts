import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { STANDARD_ERROR_CODES } from '../error-codes.ts';
import type { Stripe } from './stripe.client.ts';
import {
  AUTHORIZE_STATUS,
  avsOf,
  cvvOf,
  errorCodeOf,
  REFUND_STATUS,
  refundStatusOf,
  SYNC_STATUS,
  authorizeStatusOf,
  syncStatusOf,
  type StripeIntentStatus,
} from './stripe.mapping.ts';
import { actionsOf } from './stripe.webhooks.ts';

const intent = (status: string) => ({ status }) as Pick<Stripe.PaymentIntent, 'status'>;

describe('happy', () => {
  it('maps decline codes before error codes, onto the standardized set', () => {
    expect(errorCodeOf('insufficient_funds', 'card_declined')).toBe('insufficient_funds');
    expect(errorCodeOf(null, 'expired_card')).toBe('expired_card');
    expect(errorCodeOf('stolen_card', 'card_declined')).toBe('lost_or_stolen_card');
    expect(errorCodeOf(null, 'incorrect_cvc')).toBe('incorrect_cvv');
    for (const code of ['generic_decline', 'fraudulent', 'try_again_later', 'authentication_required'])
      expect(STANDARD_ERROR_CODES).toContain(errorCodeOf(code, null));
  });

  it('maps CVC and address checks', () => {
    expect([cvvOf('pass'), cvvOf('fail'), cvvOf('unavailable'), cvvOf('unchecked'), cvvOf(null)]).toEqual([
      'match',
      'no_match',
      'unavailable',
      'not_provided',
      'not_provided',
    ]);
    expect(avsOf('pass', 'pass')).toBe('match');
    expect(avsOf('pass', 'fail')).toBe('partial_match_address');
    expect(avsOf('fail', 'pass')).toBe('partial_match_postcode');
    expect(avsOf('fail', 'fail')).toBe('no_match');
    expect(avsOf('unavailable', null)).toBe('unavailable');
    expect(avsOf(null, null)).toBeNull();
  });

  it('maps every PaymentIntent status, for an authorization and for a status query', () => {
    const expected: Record<StripeIntentStatus, [string | null, string]> = {
      requires_capture: ['authorized', 'authorized'],
      succeeded: ['captured', 'captured'],
      requires_action: ['buyer_approval_pending', 'buyer_approval_pending'],
      requires_payment_method: ['declined', 'declined'],
      requires_confirmation: ['failed', 'failed'],
      canceled: ['failed', 'voided'],
      processing: [null, 'capture_pending'],
    };
    expect(Object.keys(AUTHORIZE_STATUS).sort()).toEqual(Object.keys(expected).sort());
    expect(Object.keys(SYNC_STATUS).sort()).toEqual(Object.keys(expected).sort());
    for (const [status, [authorize, sync]] of Object.entries(expected)) {
      expect(authorizeStatusOf(intent(status)), status).toBe(authorize);
      expect(syncStatusOf(intent(status)), status).toBe(sync);
    }
  });

  it('maps every refund status; a refund without one yet is processing', () => {
    const expected = {
      succeeded: 'succeeded',
      pending: 'processing',
      requires_action: 'processing',
      failed: 'failed',
      canceled: 'failed',
    };
    expect(REFUND_STATUS).toEqual(expected);
    for (const [status, ours] of Object.entries(expected)) expect(refundStatusOf(status), status).toBe(ours);
    expect(refundStatusOf(null)).toBe('processing');
  });

  it('maps every documented CVC check; an unknown one is unavailable, never a match', () => {
    expect(cvvOf('a_new_check')).toBe('unavailable');
  });
});

describe('errors', () => {
  it('an unknown code is do_not_honor, never a guess', () => {
    expect(errorCodeOf('something_new', 'card_declined_in_2030')).toBe('do_not_honor');
  });

  it('a PaymentIntent or Refund status newer than the tables is an unknown outcome naming the value, never failed', () => {
    for (const call of [
      () => authorizeStatusOf(intent('requires_reauthorization')),
      () => syncStatusOf(intent('requires_reauthorization')),
      () => refundStatusOf('requires_reauthorization'),
    ]) {
      expect(call).toThrow(ConnectorError);
      expect(call).toThrow(/"requires_reauthorization".*left to reconciliation/);
      try {
        call();
      } catch (error) {
        expect(error).toMatchObject({ kind: 'timeout', raw: { code: 'requires_reauthorization' } });
      }
    }
  });

  it('a refund event in an unknown status changes nothing (reconciliation asks Stripe)', () => {
    const event = (status: string) =>
      ({
        id: 'evt_1',
        type: 'refund.updated',
        data: {
          object: {
            id: 're_1',
            object: 'refund',
            amount: 500,
            currency: 'usd',
            payment_intent: 'pi_1',
            status,
            failure_reason: null,
          },
        },
      }) as unknown as Stripe.Event;
    expect(actionsOf(event('requires_reauthorization'))).toEqual([]);
    expect(actionsOf(event('pending'))).toEqual([]);
    expect(actionsOf(event('succeeded'))).toMatchObject([
      { kind: 'refund_succeeded', providerTransactionId: 'pi_1', providerReferenceId: 're_1' },
    ]);
    expect(actionsOf(event('canceled'))).toMatchObject([{ kind: 'refund_failed', rawResponseCode: 'canceled' }]);
  });
});
