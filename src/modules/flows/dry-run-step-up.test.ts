import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { routeOutcomeOf } from './flow-decisions.ts';
import { stepUpPreview, type StepUpPreviewInput } from './dry-run-step-up.ts';

const outcome = (o: object) =>
  routeOutcomeOf({
    id: 'r',
    flow: 'card-transaction',
    action: 'route-transaction',
    position: 1,
    enabled: true,
    conditions: [],
    outcome: { payment_service_ids: ['a'], ...o },
  });

const input = (over: Partial<StepUpPreviewInput> = {}): StepUpPreviewInput => ({
  ruleId: 'r',
  outcome: outcome({ step_up_on_soft_decline: true }),
  eligible: ['a', 'b', 'c'],
  merchantInitiated: false,
  paymentSource: 'ecommerce',
  card: true,
  redirectUrl: true,
  threeDsDone: false,
  authenticatorOf: () => null,
  now: 0,
  ...over,
});

describe('stepUpPreview', () => {
  it('goes to the first service from the declining one on that can authenticate, within max_attempts (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 1, max: 3 }),
        (can, max) => {
          const ids = ['a', 'b', 'c'];
          const preview = stepUpPreview(
            input({
              outcome: outcome({ step_up_on_soft_decline: true, max_attempts: max }),
              authenticatorOf: (id) => (can[ids.indexOf(id)] ? 'sandbox-3ds-server' : null),
            }),
          )!;
          const target = ids.find((_, i) => can[i]);
          if (target === undefined) expect(preview.refused_because).toBe('no_service_authenticates');
          else if (target !== 'a' && max < 2) expect(preview.refused_because).toBe('max_attempts_reached');
          else expect(preview).toMatchObject({ stepped_up: true, to: target, same_service: target === 'a' });
          expect(preview.if_declined_at).toBe('a');
        },
      ),
    );
  });

  it('refuses without a rule, and says nothing when no service would be tried', () => {
    expect(stepUpPreview(input({ ruleId: null, outcome: null }))!.refused_because).toBe('no_rule');
    expect(stepUpPreview(input({ eligible: [] }))).toBeNull();
  });
});
