import { describe, expect, it } from 'vitest';
import { alreadySettled, captureSettlementAmount } from './capture-settlement.ts';

describe('captureSettlementAmount', () => {
  const row = { captured_amount: 500, authorized_amount: 1000 };

  it('settles a capture for its own amount', () => {
    expect(captureSettlementAmount(row, { operation: 'capture', amount: 300 }, 0)).toBe(300);
    expect(captureSettlementAmount(row, { operation: 'capture', amount: 200 }, 300)).toBe(200);
  });

  it('never settles more than is captured and not settled yet', () => {
    expect(captureSettlementAmount(row, { operation: 'capture', amount: 300 }, 400)).toBe(100);
    expect(captureSettlementAmount(row, { operation: 'capture', amount: 300 }, 500)).toBe(0);
    expect(captureSettlementAmount(row, { operation: 'capture', amount: 300 }, 700)).toBe(0);
  });

  it('an authorization that captured settles the authorized amount; without a capture, the rest', () => {
    expect(
      captureSettlementAmount(
        { captured_amount: 1000, authorized_amount: 1000 },
        { operation: 'authorize', amount: 1000 },
        0,
      ),
    ).toBe(1000);
    expect(captureSettlementAmount(row, null, 200)).toBe(300);
    expect(captureSettlementAmount(row, null, 500)).toBe(0);
  });
});

describe('alreadySettled', () => {
  const settlements = [
    { refund_id: null, capture_attempt_id: 'capture-1' },
    { refund_id: 'refund-1', capture_attempt_id: null },
  ];

  it('finds the settlement of the same capture, refund or whole amount, as settlements_once_idx keys them', () => {
    expect(alreadySettled(settlements, 'capture-1')).toBe(true);
    expect(alreadySettled(settlements, null, 'refund-1')).toBe(true);
    expect(alreadySettled([...settlements, { refund_id: null, capture_attempt_id: null }], null)).toBe(true);
  });

  it('tells other captures, refunds and the whole amount apart', () => {
    expect(alreadySettled(settlements, 'capture-2')).toBe(false);
    expect(alreadySettled(settlements, null, 'refund-2')).toBe(false);
    expect(alreadySettled(settlements, null)).toBe(false);
    expect(alreadySettled([], 'capture-1')).toBe(false);
  });
});
