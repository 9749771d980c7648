import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../connector.ts';
import { STANDARD_ERROR_CODES } from '../error-codes.ts';
import { BATCH_STATUS, batchStatusOf, ITEM_STATUS, itemStatusOf, payoutErrorCodeOf } from './paypal.payouts-mapping.ts';

describe('PayPal payout statuses', () => {
  it('maps every item status, final only where PayPal is done with the item', () => {
    expect(itemStatusOf('SUCCESS')).toBe('succeeded');
    for (const open of ['PENDING', 'NEW', 'ONHOLD', 'UNCLAIMED']) expect(itemStatusOf(open)).toBe('pending');
    for (const no of ['BLOCKED', 'DENIED', 'RETURNED']) expect(itemStatusOf(no)).toBe('declined');
    for (const failed of ['FAILED', 'REFUNDED', 'REVERSED']) expect(itemStatusOf(failed)).toBe('failed');
    expect(Object.keys(ITEM_STATUS)).toHaveLength(11);
  });

  it('reads a batch without items as pending unless PayPal refused it', () => {
    expect(batchStatusOf('PENDING')).toBe('pending');
    expect(batchStatusOf('SUCCESS')).toBe('pending');
    expect(batchStatusOf('DENIED')).toBe('declined');
    expect(Object.keys(BATCH_STATUS)).toHaveLength(5);
  });

  it('leaves a status it does not know to reconciliation (a timeout), never a decline', () => {
    for (const read of [() => itemStatusOf('LOST'), () => batchStatusOf('toString')])
      expect(read).toThrow(ConnectorError);
    expect(() => itemStatusOf('LOST')).toThrow(expect.objectContaining({ kind: 'timeout' }));
  });

  it("maps PayPal's item errors onto standardized codes, by the status otherwise", () => {
    expect(payoutErrorCodeOf('declined', 'RISK_DECLINE')).toBe('blocked_by_risk_rules');
    expect(payoutErrorCodeOf('failed', 'RECEIVER_ACCOUNT_LOCKED')).toBe('restricted_card');
    expect(payoutErrorCodeOf('declined', null)).toBe('do_not_honor');
    expect(payoutErrorCodeOf('failed', 'toString')).toBe('service_error');
    for (const name of ['INSUFFICIENT_FUNDS', 'RECEIVER_UNREGISTERED', 'DUPLICATE_ITEM'])
      expect(STANDARD_ERROR_CODES).toContain(payoutErrorCodeOf('failed', name));
  });
});
