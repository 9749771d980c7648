import { describe, expect, it } from 'vitest';
import type { TransactionStatus } from '../../../db/schema-transactions.ts';
import { antiFraudUpdateOf, updateKeyOf } from './anti-fraud-updates.ts';

const STATUSES: TransactionStatus[] = [
  'processing',
  'buyer_approval_pending',
  'authorization_succeeded',
  'authorization_declined',
  'authorization_failed',
  'authorization_voided',
  'authorization_void_pending',
  'capture_succeeded',
  'capture_pending',
];

describe('antiFraudUpdateOf', () => {
  it('an authorization event reports the outcome of every status, and nothing for an open one', () => {
    for (const kind of ['transaction.created', 'transaction.updated', 'transaction.captured'])
      expect(Object.fromEntries(STATUSES.map((s) => [s, antiFraudUpdateOf(kind, s)]))).toEqual({
        processing: null,
        buyer_approval_pending: null,
        authorization_succeeded: 'approved',
        authorization_declined: 'declined',
        authorization_failed: 'declined',
        authorization_voided: null,
        authorization_void_pending: null,
        capture_succeeded: 'approved',
        capture_pending: 'approved',
      });
  });

  it('a void or cancel is canceled, a dispute a chargeback, whatever the status; other events nothing', () => {
    for (const status of STATUSES) {
      expect(antiFraudUpdateOf('transaction.voided', status)).toBe('canceled');
      expect(antiFraudUpdateOf('transaction.canceled', status)).toBe('canceled');
      expect(antiFraudUpdateOf('transaction.disputed', status)).toBe('chargeback');
      for (const kind of ['transaction.settled', 'transaction.chargeback_reversed', 'refund.succeeded'])
        expect(antiFraudUpdateOf(kind, status)).toBeNull();
    }
  });

  it('approved and declined share one key: the authorization is told once; each refund has its own', () => {
    expect(updateKeyOf('approved')).toBe('authorization');
    expect(updateKeyOf('declined')).toBe('authorization');
    expect(updateKeyOf('canceled')).toBe('canceled');
    expect(updateKeyOf('chargeback')).toBe('chargeback');
    expect(updateKeyOf('refunded', 'r-1')).toBe('refunded:r-1');
  });
});
