import { describe, expect, it } from 'vitest';
import { ALL_STATUSES } from '../transactions/transaction-status.ts';
import { afterPayment, canTransition, isDue, paymentOutcome, payRefusal } from './payment-link-status.ts';

const now = new Date('2030-01-01T12:00:00Z');
const later = new Date('2030-01-02T12:00:00Z');
const earlier = new Date('2029-12-31T12:00:00Z');

describe('payment link status', () => {
  it('allows exactly the documented changes', () => {
    const allowed = (['active', 'processing', 'completed', 'expired'] as const).flatMap((from) =>
      (['active', 'processing', 'completed', 'expired'] as const)
        .filter((to) => canTransition(from, to))
        .map((to) => `${from}>${to}`),
    );
    expect(allowed).toEqual([
      'active>processing',
      'active>expired',
      'processing>active',
      'processing>completed',
      'processing>expired',
    ]);
  });

  it('maps every transaction status to paid, unpaid or pending', () => {
    const outcomes = Object.fromEntries(ALL_STATUSES.map((s) => [s, paymentOutcome(s)]));
    expect(outcomes).toEqual({
      processing: 'pending',
      buyer_approval_pending: 'pending',
      authorization_succeeded: 'paid',
      authorization_declined: 'unpaid',
      authorization_failed: 'unpaid',
      authorization_voided: 'paid',
      authorization_void_pending: 'paid',
      capture_succeeded: 'paid',
      capture_pending: 'paid',
    });
  });

  it('reopens a link whose payment failed, unless its time has passed', () => {
    expect(afterPayment('paid', earlier, now)).toBe('completed');
    expect(afterPayment('unpaid', later, now)).toBe('active');
    expect(afterPayment('unpaid', earlier, now)).toBe('expired');
  });

  it('refuses payment of completed, expired, due and processing links', () => {
    expect(payRefusal({ status: 'active', expires_at: later }, now)).toBeNull();
    expect(payRefusal({ status: 'active', expires_at: earlier }, now)).toBe('expired');
    expect(payRefusal({ status: 'expired', expires_at: later }, now)).toBe('expired');
    expect(payRefusal({ status: 'completed', expires_at: earlier }, now)).toBe('completed');
    expect(payRefusal({ status: 'processing', expires_at: later }, now)).toBe('processing');
    expect(isDue({ status: 'processing', expires_at: earlier }, now)).toBe(false);
  });
});
