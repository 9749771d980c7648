import { describe, expect, it } from 'vitest';
import { refusalOf as refusal } from '../../../../test/helpers/refusal.ts';
import { planRefund, refundBasis, type RefundFacts } from './refund-checks.ts';

const captured: RefundFacts = {
  status: 'capture_succeeded',
  captured_amount: 1000,
  refunded_amount: 300,
  refund_reserved: 200,
};

describe('planRefund', () => {
  it('refunds what is captured and neither refunded nor reserved when the amount is omitted', () => {
    expect(planRefund(captured, {}, true)).toBe(500);
    expect(planRefund(captured, { amount: null }, true)).toBe(500);
    expect(planRefund(captured, { amount: 500 }, true)).toBe(500);
  });

  it('refuses an uncaptured transaction and an amount above what is left', () => {
    expect(
      refusal(() =>
        planRefund(
          {
            ...captured,
            status: 'authorization_succeeded',
            captured_amount: 0,
            refunded_amount: 0,
            refund_reserved: 0,
          },
          {},
          true,
        ),
      ).message,
    ).toContain('Only a captured transaction');
    expect(refusal(() => planRefund(captured, { amount: 501 }, true))).toMatchObject({
      pointer: '/amount',
      detail: 'amount exceeds what can be refunded (500 is left)',
    });
  });

  it('nothing left: refused, or null for refunds/all', () => {
    const spent = { ...captured, refunded_amount: 1000, refund_reserved: 0 };
    expect(refusal(() => planRefund(spent, {}, true))).toMatchObject({
      code: 'bad_request',
      message: 'Nothing is left to refund on this transaction',
    });
    expect(planRefund(spent, {}, false)).toBeNull();
  });
});

describe('refundBasis', () => {
  it('holds every column planRefund reads', () => {
    expect(refundBasis({ ...captured, captured_at: null } as RefundFacts)).toEqual(captured);
  });
});
