import { describe, expect, it } from 'vitest';
import type { TransactionStatus } from '../../db/schema-transactions.ts';
import {
  ALL_STATUSES,
  AUTHORIZED,
  TransitionError,
  canTransition,
  cancelRefusal,
  captureRefusal,
  intentOutcome,
  nextStatus,
  refundRefusal,
  voidRefusal,
} from './transaction-status.ts';

/** The specification, written out independently of TRANSITIONS: every allowed change. */
const ALLOWED: Record<TransactionStatus, TransactionStatus[]> = {
  processing: [
    'buyer_approval_pending',
    'authorization_succeeded',
    'authorization_declined',
    'authorization_failed',
    'capture_succeeded',
    'capture_pending',
  ],
  buyer_approval_pending: [
    'authorization_succeeded',
    'authorization_declined',
    'authorization_failed',
    'capture_succeeded',
    'capture_pending',
  ],
  authorization_succeeded: [
    'capture_succeeded',
    'capture_pending',
    'authorization_voided',
    'authorization_void_pending',
  ],
  capture_pending: ['capture_succeeded', 'authorization_succeeded'],
  // A further partial capture of a multi-capture authorization may be pending at the provider.
  capture_succeeded: ['capture_succeeded', 'capture_pending'],
  authorization_void_pending: ['authorization_voided', 'authorization_succeeded'],
  authorization_declined: [],
  authorization_failed: [],
  authorization_voided: [],
};

const pairs = ALL_STATUSES.flatMap((from) => ALL_STATUSES.map((to) => [from, to] as const));

describe('happy', () => {
  it('knows the nine statuses of the database CHECK constraint', () => {
    expect([...ALL_STATUSES].sort()).toEqual(Object.keys(ALLOWED).sort());
    expect(ALL_STATUSES).toHaveLength(9);
  });

  it.each(pairs.filter(([from, to]) => ALLOWED[from].includes(to)))('allows %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(nextStatus(from, to)).toBe(to);
  });

  it.each(ALL_STATUSES)('treats %s → itself as no change', (status) => {
    expect(nextStatus(status, status)).toBe(status);
  });

  const expected: Record<TransactionStatus, { authorize: string; capture: string }> = {
    processing: { authorize: 'pending', capture: 'pending' },
    buyer_approval_pending: { authorize: 'pending', capture: 'pending' },
    authorization_succeeded: { authorize: 'succeeded', capture: 'pending' },
    capture_pending: { authorize: 'succeeded', capture: 'pending' },
    capture_succeeded: { authorize: 'succeeded', capture: 'succeeded' },
    authorization_void_pending: { authorize: 'succeeded', capture: 'failed' },
    authorization_voided: { authorize: 'succeeded', capture: 'failed' },
    authorization_declined: { authorize: 'failed', capture: 'failed' },
    authorization_failed: { authorize: 'failed', capture: 'failed' },
  };
  it.each(ALL_STATUSES.flatMap((s) => (['authorize', 'capture'] as const).map((i) => [s, i] as const)))(
    'intentOutcome of %s with intent %s',
    (status, intent) => {
      expect(intentOutcome(intent, status)).toBe(expected[status][intent]);
    },
  );

  it('lists the statuses that hold authorized funds', () => {
    expect([...AUTHORIZED].sort()).toEqual(['authorization_succeeded', 'capture_pending', 'capture_succeeded']);
  });

  it('captures only an open, authorized transaction', () => {
    expect(captureRefusal({ status: 'authorization_succeeded', capture_closed: false })).toBeNull();
    expect(captureRefusal({ status: 'capture_succeeded', capture_closed: false })).toBeNull();
    for (const status of ALL_STATUSES.filter((s) => s !== 'authorization_succeeded' && s !== 'capture_succeeded')) {
      expect(captureRefusal({ status, capture_closed: false }), status).toEqual(expect.any(String));
    }
    for (const status of ALL_STATUSES)
      expect(captureRefusal({ status, capture_closed: true })).toContain('final capture or a void');
    expect(captureRefusal({ status: 'capture_pending', capture_closed: false })).toContain('still pending');
  });

  it('voids only an authorized, uncaptured transaction', () => {
    const open = { captured_amount: 0, capture_reserved: 0 };
    expect(voidRefusal({ status: 'authorization_succeeded', ...open })).toBeNull();
    for (const status of ALL_STATUSES.filter((s) => s !== 'authorization_succeeded'))
      expect(voidRefusal({ status, ...open }), status).toEqual(expect.any(String));
    expect(voidRefusal({ status: 'authorization_succeeded', captured_amount: 1, capture_reserved: 0 })).toContain(
      'refund it instead',
    );
    expect(voidRefusal({ status: 'authorization_succeeded', captured_amount: 0, capture_reserved: 1 })).toContain(
      'refund it instead',
    );
    expect(voidRefusal({ status: 'authorization_void_pending', ...open })).toContain('already pending');
  });

  it('cancels only a transaction awaiting its outcome', () => {
    for (const status of ALL_STATUSES) {
      const refusal = cancelRefusal({ status });
      if (status === 'processing' || status === 'buyer_approval_pending') expect(refusal, status).toBeNull();
      else expect(refusal, status).toContain(status);
    }
  });

  it('refunds only what was captured', () => {
    for (const status of ALL_STATUSES) {
      expect(refundRefusal({ status, captured_amount: 0 }), status).toContain('captured transaction');
    }
    expect(refundRefusal({ status: 'capture_succeeded', captured_amount: 1 })).toBeNull();
  });
});

describe('errors', () => {
  it.each(pairs.filter(([from, to]) => from !== to && !ALLOWED[from].includes(to)))('refuses %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => nextStatus(from, to)).toThrow(TransitionError);
    try {
      nextStatus(from, to);
    } catch (error) {
      expect(error).toMatchObject({ from, to, message: `a transaction cannot go from ${from} to ${to}` });
    }
  });

  it('has no way out of a final status', () => {
    for (const status of ['authorization_declined', 'authorization_failed', 'authorization_voided'] as const) {
      expect(ALL_STATUSES.filter((to) => canTransition(status, to))).toEqual([]);
    }
  });
});
