import { describe, expect, it } from 'vitest';
import type { SyncOutcome } from '../../../connectors/connector.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { collectionResolution } from './collection-resolution.ts';

const now = new Date('2030-01-01T00:00:00Z');

/** An authorize-and-capture of a direct debit whose collection is pending at the provider. */
const pending = {
  id: '018f0000-0000-7000-8000-000000000001',
  merchant_account_id: 'ma',
  status: 'capture_pending',
  intent: 'capture',
  intent_outcome: 'pending',
  amount: 1000,
  authorized_amount: 1000,
  capture_limit: 1000,
  captured_amount: 0,
  refunded_amount: 0,
  capture_reserved: 1000,
  refund_reserved: 0,
  capture_closed: false,
  gift_card_amount: 0,
} as unknown as TransactionRow;

const answer = (status: SyncOutcome['status']): SyncOutcome => ({
  status,
  providerTransactionId: 'p',
  errorCode: null,
  rawResponseCode: status === 'failed' ? 'AM04' : null,
  rawResponseDescription: null,
});

describe('collectionResolution', () => {
  it('captures the reserved amount when the collection is confirmed', () => {
    expect(collectionResolution(pending, answer('captured'), now)).toEqual({
      status: 'succeeded',
      patch: expect.objectContaining({ status: 'capture_succeeded', captured_amount: 1000, capture_reserved: 0 }),
    });
  });

  it('returns a failed collection to an authorization that stands, nothing captured', () => {
    const resolved = collectionResolution(pending, answer('failed'), now);
    expect(resolved).toEqual({
      status: 'succeeded',
      patch: expect.objectContaining({ status: 'authorization_succeeded', capture_reserved: 0 }),
    });
    expect(resolved?.patch).not.toHaveProperty('captured_amount');
  });

  it('leaves it open for any other answer', () => {
    for (const status of ['capture_pending', 'authorized', 'declined', 'pending'] as const)
      expect(collectionResolution(pending, answer(status), now), status).toBeNull();
  });
});
