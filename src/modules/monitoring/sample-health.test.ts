import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { healthOf, incidentStep } from './sample-health.ts';

const threshold = (gt: number | null, lt: number | null) => ({
  strategy: 'threshold' as const,
  params: { alert_gt: gt, alert_lt: lt },
});
const debouncing = (create: number, close: number) => ({
  strategy: 'debouncing' as const,
  params: { create_after_n: create, close_after_n: close },
});

describe('healthOf', () => {
  it('breaches strictly above alert_gt or below alert_lt', () => {
    expect(healthOf(0.5, threshold(null, 0.8))).toBe(false);
    expect(healthOf(0.8, threshold(null, 0.8))).toBe(true);
    expect(healthOf(0.99, threshold(0.98, null))).toBe(false);
    expect(healthOf(0.9, threshold(0.98, 0.8))).toBe(true);
  });
  it('judges nothing without a policy or a value', () => {
    expect(healthOf(0.1, null)).toBeNull();
    expect(healthOf(null, threshold(null, 0.8))).toBeNull();
  });
});

describe('incidentStep', () => {
  it('opens after create_after_n breaching samples in a row and closes after close_after_n healthy ones', () => {
    const policy = debouncing(3, 2);
    expect(incidentStep([false, false], false, policy)).toBe('none');
    expect(incidentStep([false, false, false], false, policy)).toBe('open');
    expect(incidentStep([false, null, false], false, policy)).toBe('none');
    expect(incidentStep([true], true, policy)).toBe('none');
    expect(incidentStep([true, true, false], true, policy)).toBe('close');
    expect(incidentStep([true, true], false, policy)).toBe('none');
  });
  it('acts on a single sample without an incident policy', () => {
    expect(incidentStep([false], false, null)).toBe('open');
    expect(incidentStep([true], true, null)).toBe('close');
  });
  it('never opens on a healthy newest sample nor closes on a breaching one (property)', () => {
    const health = fc.array(fc.constantFrom(true, false, null), { minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(
        health,
        fc.boolean(),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 10 }),
        (recent, open, create, close) => {
          const step = incidentStep(recent, open, debouncing(create, close));
          if (step === 'open') expect(recent[0]).toBe(false);
          if (step === 'close') expect(recent[0]).toBe(true);
          if (open) expect(step).not.toBe('open');
          else expect(step).not.toBe('close');
        },
      ),
    );
  });
});
