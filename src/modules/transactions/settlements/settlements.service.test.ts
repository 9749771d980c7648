import { describe, expect, it } from 'vitest';
import { captureSettlementAmount } from './settlements.service.ts';

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
    expect(captureSettlementAmount({ captured_amount: 1000, authorized_amount: 1000 }, { operation: 'authorize', amount: 1000 }, 0)).toBe(1000);
    expect(captureSettlementAmount(row, null, 200)).toBe(300);
    expect(captureSettlementAmount(row, null, 500)).toBe(0);
  });
});
