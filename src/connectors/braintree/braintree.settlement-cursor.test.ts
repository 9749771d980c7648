import { describe, expect, it } from 'vitest';
import {
  daysOf,
  decodeCursor,
  encodeCursor,
  firstCursor,
  microsOf,
  nextPhase,
  timestampOf,
} from './braintree.settlement-cursor.ts';
import { disputeLines, paymentLine } from './braintree.settlement-lines.ts';

const DAY = 86_400_000_000;

describe('happy', () => {
  it("keeps Braintree's microseconds both ways", () => {
    expect(microsOf('2026-11-25T12:00:00.123456Z')).toBe(Date.parse('2026-11-25T12:00:00.123Z') * 1000 + 456);
    expect(microsOf('2026-11-25T12:00:00Z')).toBe(Date.parse('2026-11-25T12:00:00Z') * 1000);
    expect(microsOf('2026-11-25T13:00:00.5+01:00')).toBe(Date.parse('2026-11-25T12:00:00.5Z') * 1000);
    expect(timestampOf(microsOf('2026-11-25T12:00:00.000001Z')!)).toBe('2026-11-25T12:00:00.000001Z');
    expect(microsOf('yesterday')).toBeNull();
  });

  it('gives each day to exactly one window: the days that start after its lower bound and at or before its upper', () => {
    const start = Date.parse('2026-11-01T00:00:00Z') * 1000;
    expect(daysOf(start - 1, start + 2 * DAY)).toEqual({ from: '2026-11-01', to: '2026-11-03' });
    expect(daysOf(start + 2 * DAY, start + 3 * DAY - 1)).toBeNull();
    expect(daysOf(start + 2 * DAY, start + 3 * DAY)).toEqual({ from: '2026-11-04', to: '2026-11-04' });
  });

  it('walks the three searches of a round, and round-trips through its text', () => {
    const cursor = firstCursor(new Date('2026-11-01T00:00:00Z'));
    expect(cursor).toEqual({
      phase: 'transactions',
      lower: Date.parse('2026-11-01T00:00:00Z') * 1000 - 1,
      upper: null,
      after: null,
    });
    const refunds = nextPhase({ ...cursor, upper: 5, after: 'x' })!;
    expect(refunds).toEqual({ ...cursor, upper: 5, phase: 'refunds', after: null });
    expect(nextPhase({ ...refunds, phase: 'disputes' })).toBeNull();
    expect(decodeCursor(encodeCursor({ ...refunds, after: 'YWJj' }))).toEqual({ ...refunds, after: 'YWJj' });
  });

  it('reads a dispute that never was open (auto-accepted) as a chargeback at its first event', () => {
    const dispute = {
      id: 'd1',
      type: 'CHARGEBACK',
      status: 'AUTO_ACCEPTED',
      amountDisputed: { value: '12.00', currencyCode: 'USD' },
      transaction: { id: 't1', merchantAccountId: 'acme' },
      statusHistory: [
        {
          status: 'AUTO_ACCEPTED',
          timestamp: '2026-11-02T05:00:00Z',
          effectiveDate: '2026-11-02',
          disbursementDate: '2026-11-03',
        },
      ],
    };
    expect(disputeLines(dispute, { lower: 0, upper: Date.parse('2026-12-01') * 1000 })).toEqual([
      expect.objectContaining({
        kind: 'chargeback',
        reportLineId: 'dispute:d1:opened',
        amount: 1200,
        reportId: 'disbursement:acme:2026-11-03',
      }),
    ]);
  });
});

describe('errors', () => {
  it('refuses a cursor it did not write', () => {
    for (const text of [
      '',
      'bt1:',
      'bt1:!!',
      `bt1:${Buffer.from('{"phase":"payouts","lower":1,"upper":null,"after":null}').toString('base64url')}`,
      `bt1:${Buffer.from('{"phase":"refunds","lower":"1","upper":null,"after":null}').toString('base64url')}`,
    ]) {
      expect(() => decodeCursor(text), text).toThrow(
        expect.objectContaining({ name: 'ConnectorError', kind: 'invalid_request' }),
      );
    }
  });

  it('stops on an amount it cannot read rather than guess one', () => {
    const payment = {
      id: 't1',
      merchantAccountId: 'acme',
      statusHistory: [
        { status: 'SETTLED', timestamp: '2026-11-02T05:00:00Z', amount: { value: '12.5.0', currencyCode: 'USD' } },
      ],
    };
    expect(() => paymentLine('capture', payment, { lower: 0, upper: Date.parse('2026-12-01') * 1000 })).toThrow(
      expect.objectContaining({ name: 'ConnectorError', kind: 'unavailable' }),
    );
    expect(() =>
      paymentLine(
        'refund',
        {
          ...payment,
          statusHistory: [{ ...payment.statusHistory[0]!, amount: { value: '1.00', currencyCode: 'USD' } }],
        },
        { lower: 0, upper: Date.parse('2026-12-01') * 1000 },
      ),
    ).toThrow(/refundedTransaction/);
  });
});
