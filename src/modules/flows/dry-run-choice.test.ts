import { describe, expect, it } from 'vitest';
import { dryRunChoice, type ChoiceInputs } from './dry-run-choice.ts';
import { serviceOrder, splitBucket } from './flow-decisions.ts';

const base: ChoiceInputs = {
  ruled: true,
  weights: null,
  splitKey: 'dry-run',
  order: ['a', 'b', 'c'],
  eligible: ['b', 'c'],
  skipped: [{ payment_service_id: 'a', reason: 'circuit_open' }],
  ranked: null,
};

describe('dryRunChoice', () => {
  it("static: the first eligible in the rule's order, naming what was skipped ahead of it", () => {
    expect(dryRunChoice(base)).toEqual({
      payment_service_id: 'b',
      by: 'rule_order',
      reason: "the first eligible service in the rule's order (skipped ahead of it: a circuit_open)",
    });
  });

  it('no rule: the first eligible by position', () => {
    expect(dryRunChoice({ ...base, ruled: false, skipped: [], order: ['b', 'c'] })).toMatchObject({
      by: 'first_eligible_by_position',
      reason: 'the first eligible service by position: no route-transaction rule matched',
    });
  });

  it('weights: the bucket of the key, the same one serviceOrder draws', () => {
    const weights = [50, 50];
    for (const key of ['k1', 'k2', 'k3', 'k4']) {
      const order = serviceOrder({ payment_service_ids: ['a', 'b'], weights }, key);
      const choice = dryRunChoice({ ...base, weights, splitKey: key, order, eligible: order, skipped: [] })!;
      expect(choice.payment_service_id).toBe(order[0]);
      expect(choice.reason).toContain(`bucket ${splitBucket(key)} of 0..99`);
      expect(choice.by).toBe('weighted_draw');
    }
    const drawnSkipped = dryRunChoice({ ...base, weights: [100, 0, 0] })!;
    expect(drawnSkipped.reason).toContain("which is a's share; the next eligible in the rule's order");
  });

  it("a strategy's own reason, and a service kept with its circuit open", () => {
    const ranked = { strategy: 'least_cost' as const, reason: 'lowest expected cost 25 USD' };
    expect(dryRunChoice({ ...base, ranked, circuitOpenKept: ['b'] })).toEqual({
      payment_service_id: 'b',
      by: 'least_cost',
      reason:
        'lowest expected cost 25 USD; kept although its circuit is open: no eligible service has a closed circuit',
    });
  });

  it('null when nothing is eligible', () => {
    expect(dryRunChoice({ ...base, eligible: [] })).toBeNull();
  });
});
