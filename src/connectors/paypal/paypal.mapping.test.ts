import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { STANDARD_ERROR_CODES } from '../error-codes.ts';
import {
  AUTHORIZATION_STATUS,
  authorizationStateOf,
  CAPTURE_STATUS,
  captureStateOf,
  declineOf,
  httpError,
  ORDER_STATUS,
  orderStateOf,
  REFUND_STATUS,
  refundStateOf,
} from './paypal.mapping.ts';

const error = (issue: string) => ({
  name: 'UNPROCESSABLE_ENTITY',
  message: 'The requested action could not be performed.',
  debug_id: 'f00ba4',
  details: [{ issue, description: `${issue} happened` }],
});

describe('PayPal status tables', () => {
  it('maps every documented order, authorization, capture and refund status', () => {
    expect(ORDER_STATUS).toEqual({
      CREATED: 'waiting',
      PAYER_ACTION_REQUIRED: 'waiting',
      SAVED: 'waiting',
      APPROVED: 'approved',
      COMPLETED: 'completed',
      VOIDED: 'voided',
    });
    expect(AUTHORIZATION_STATUS).toEqual({
      CREATED: 'authorized',
      PARTIALLY_CAPTURED: 'authorized',
      CAPTURED: 'captured',
      DENIED: 'declined',
      VOIDED: 'voided',
      PENDING: 'pending',
    });
    expect(CAPTURE_STATUS).toEqual({
      COMPLETED: 'succeeded',
      PARTIALLY_REFUNDED: 'succeeded',
      REFUNDED: 'succeeded',
      PENDING: 'pending',
      DECLINED: 'declined',
      FAILED: 'failed',
    });
    expect(REFUND_STATUS).toEqual({
      COMPLETED: 'succeeded',
      PENDING: 'processing',
      FAILED: 'failed',
      CANCELLED: 'failed',
    });
    expect(orderStateOf('APPROVED')).toBe('approved');
    expect(authorizationStateOf('CREATED')).toBe('authorized');
    expect(captureStateOf('COMPLETED')).toBe('succeeded');
    expect(refundStateOf('PENDING')).toBe('processing');
  });

  it('treats a status it does not know as an unknown outcome (timeout), never a decline or a failure', () => {
    for (const read of [orderStateOf, authorizationStateOf, captureStateOf, refundStateOf]) {
      for (const value of ['REVERSED', undefined, 'toString']) {
        const thrown = (() => {
          try {
            read(value);
          } catch (e) {
            return e;
          }
          return null;
        })();
        expect(thrown).toBeInstanceOf(ConnectorError);
        expect((thrown as ConnectorError).kind).toBe('timeout');
      }
    }
  });
});

describe('PayPal errors', () => {
  it('reads business refusals (422) as declines with a standard code and the issue kept', () => {
    expect(declineOf(422, error('INSTRUMENT_DECLINED'))).toEqual({
      errorCode: 'do_not_honor',
      rawResponseCode: 'INSTRUMENT_DECLINED',
      rawResponseDescription: 'INSTRUMENT_DECLINED happened',
    });
    expect(declineOf(422, error('PAYER_CANNOT_PAY'))?.errorCode).toBe('transaction_not_permitted');
    expect(declineOf(422, error('AUTHORIZATION_EXPIRED'), 'capture_declined')?.errorCode).toBe('authorization_expired');
    expect(declineOf(422, error('AUTHORIZATION_ALREADY_CAPTURED'), 'capture_declined')?.errorCode).toBe(
      'capture_declined',
    );
    expect(declineOf(422, error('INSTRUMENT_DECLINED'), 'capture_declined')?.errorCode).toBe('capture_declined');
    expect(declineOf(422, error('REFUND_AMOUNT_EXCEEDED'), 'refund_declined')?.errorCode).toBe('refund_declined');
    for (const issue of ['INSTRUMENT_DECLINED', 'COMPLIANCE_VIOLATION', 'ORDER_EXPIRED', 'CANNOT_BE_VOIDED'])
      expect(STANDARD_ERROR_CODES).toContain(declineOf(422, error(issue))!.errorCode);
  });

  it('leaves other answers to httpError: our request, the credentials, rate limits and PayPal failures', () => {
    expect(declineOf(422, error('INVALID_PARAMETER_VALUE'))).toBeNull();
    expect(declineOf(400, error('INSTRUMENT_DECLINED'))).toBeNull();
    expect(httpError(401, { name: 'AUTHENTICATION_FAILURE' }).kind).toBe('invalid_request');
    expect(httpError(422, error('INVALID_PARAMETER_VALUE')).kind).toBe('invalid_request');
    expect(httpError(429, { name: 'RATE_LIMIT_REACHED' }).kind).toBe('unavailable');
    expect(httpError(503, { name: 'SERVICE_UNAVAILABLE', debug_id: 'abc' })).toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('debug_id abc'),
    });
  });
});
