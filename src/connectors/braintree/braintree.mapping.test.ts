import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { refundStatusOf } from './braintree.answers.ts';
import {
  avsOf,
  cvvOf,
  dataOf,
  graphQlError,
  PAYMENT_STATUS,
  processorErrorCode,
  rejectionErrorCode,
  syncStatusOf,
  type BraintreeAvsCvvCode,
  type BraintreeStatus,
} from './braintree.mapping.ts';

describe('happy', () => {
  it('maps every Braintree payment status', () => {
    const expected: Record<BraintreeStatus, string> = {
      AUTHORIZED: 'authorized',
      SUBMITTED_FOR_SETTLEMENT: 'captured',
      SETTLING: 'captured',
      SETTLEMENT_PENDING: 'captured',
      SETTLED: 'captured',
      SETTLEMENT_CONFIRMED: 'captured',
      VOIDED: 'voided',
      PROCESSOR_DECLINED: 'declined',
      GATEWAY_REJECTED: 'declined',
      SETTLEMENT_DECLINED: 'declined',
      AUTHORIZING: 'pending',
      FAILED: 'failed',
      AUTHORIZATION_EXPIRED: 'failed',
    };
    expect(Object.keys(PAYMENT_STATUS).sort()).toEqual(Object.keys(expected).sort());
    for (const [status, ours] of Object.entries(expected)) expect(syncStatusOf(status), status).toBe(ours);
  });

  it('maps every refund status: settled or settling is refunded, a voided one failed', () => {
    const refunds: Record<string, string> = {
      SUBMITTED_FOR_SETTLEMENT: 'refunded',
      SETTLED: 'refunded',
      AUTHORIZING: 'pending',
      PROCESSOR_DECLINED: 'declined',
      FAILED: 'failed',
      VOIDED: 'failed',
      AUTHORIZED: 'failed',
    };
    for (const [status, ours] of Object.entries(refunds)) expect(refundStatusOf(status), status).toBe(ours);
  });

  it('maps every AVS/CVV response code of the CVV result', () => {
    const expected: Record<BraintreeAvsCvvCode, string> = {
      MATCHES: 'match',
      DOES_NOT_MATCH: 'no_match',
      NOT_PROVIDED: 'not_provided',
      BYPASS: 'unavailable',
      ISSUER_DOES_NOT_PARTICIPATE: 'unavailable',
      NOT_APPLICABLE: 'unavailable',
      NOT_VERIFIED: 'unavailable',
      SYSTEM_ERROR: 'unavailable',
    };
    for (const [code, ours] of Object.entries(expected)) expect(cvvOf(code), code).toBe(ours);
    expect(cvvOf(null)).toBeNull();
    expect(cvvOf('A_NEW_CODE')).toBe('unavailable');
  });

  it('maps processor codes, gateway rejections, AVS and CVV', () => {
    expect(processorErrorCode('2001')).toBe('insufficient_funds');
    expect(processorErrorCode('2047')).toBe('lost_or_stolen_card');
    expect(processorErrorCode('3000')).toBe('issuer_unavailable');
    expect(rejectionErrorCode('CVV')).toBe('incorrect_cvv');
    expect(rejectionErrorCode('DUPLICATE')).toBe('duplicate_transaction');
    expect(avsOf('MATCHES', 'MATCHES')).toBe('match');
    expect(avsOf('MATCHES', 'DOES_NOT_MATCH')).toBe('partial_match_postcode');
    expect(avsOf('NOT_VERIFIED', 'NOT_PROVIDED')).toBe('unavailable');
    expect(cvvOf('DOES_NOT_MATCH')).toBe('no_match');
  });

  it('reads data, or a decline carried by errors alone', () => {
    expect(dataOf({ status: 200, data: { ping: 'pong' }, errors: [] }, 'ping')).toBe('pong');
    expect(
      dataOf(
        {
          status: 200,
          data: { chargeCreditCard: null },
          errors: [{ message: 'Do Not Honor', extensions: { errorClass: 'VALIDATION', legacyCode: '2000' } }],
        },
        'chargeCreditCard',
      ),
    ).toMatchObject({ errorCode: 'do_not_honor', rawResponseCode: '2000' });
    expect(
      dataOf(
        {
          status: 200,
          data: null,
          errors: [{ message: 'Not settled', extensions: { errorClass: 'VALIDATION', legacyCode: '91506' } }],
        },
        'refundTransaction',
        true,
      ),
    ).toMatchObject({ rawResponseCode: '91506' });
  });
});

describe('errors', () => {
  it('never approves an unknown status, and classifies GraphQL error classes', () => {
    expect(processorErrorCode('2999')).toBe('do_not_honor');
    expect(graphQlError(200, [{ extensions: { errorClass: 'AUTHENTICATION' } }]).kind).toBe('invalid_request');
    expect(graphQlError(200, [{ extensions: { errorClass: 'SERVICE_AVAILABILITY' } }]).kind).toBe('unavailable');
    expect(graphQlError(200, [{ extensions: { errorClass: 'INTERNAL' } }]).kind).toBe('timeout');
    expect(graphQlError(502, []).kind).toBe('timeout');
    expect(graphQlError(429, []).kind).toBe('unavailable');
  });
});

describe('unknown values', () => {
  it('a payment or refund status newer than the table is an unknown outcome naming it, never failed', () => {
    for (const call of [() => syncStatusOf('SOMETHING_NEW'), () => refundStatusOf('SOMETHING_NEW')]) {
      expect(call).toThrow(ConnectorError);
      expect(call).toThrow(/PaymentStatus "SOMETHING_NEW".*left to reconciliation/);
      try {
        call();
      } catch (error) {
        expect(error).toMatchObject({ kind: 'timeout', raw: { code: 'SOMETHING_NEW' } });
      }
    }
  });
});

describe('security', () => {
  it('refuses a validation error of an authorization that is not a decline (our request is wrong)', () => {
    expect(() =>
      dataOf(
        {
          status: 200,
          data: null,
          errors: [
            { message: 'Amount is an invalid format.', extensions: { errorClass: 'VALIDATION', legacyCode: '81503' } },
          ],
        },
        'authorizeCreditCard',
      ),
    ).toThrow(/81503/);
  });
});
