import { Type, type Static } from 'typebox';
import { Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';

/**
 * The dry run's explanation of a route-transaction decision beyond the rules (docs/routing.md,
 * "Dry run"): each service's current figures whatever the strategy, why the first service won, and
 * what a decline asking for authentication would lead to. flows.schemas.ts composes them.
 */

/** `payment_method.redirect_url` of the dry run's body: whether a step-up could bring the buyer back. */
export const DryRunRedirectUrl = Type.Optional(
  Nullable(
    Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'As on a transaction: where the buyer returns after a challenge. Only its presence counts (a step-up needs one)',
    }),
  ),
);

/** A service's figures now, as routing would read them for this transaction. */
export const DryRunServiceFiguresSchema = Type.Object(
  {
    circuit: StringEnum(['closed', 'open', 'half_open'] as const, {
      description:
        'Its circuit breaker as this process sees it (a rule with breaker false ignores it; the dry run sends no probe, so half_open is shown skipped)',
    }),
    estimated_rate: Type.Number({
      description:
        'Success-rate estimate: the approval rate (successes + 1) / (samples + 2) at dimension_key over the rule\'s window (else 60 minutes), times the availability over the health window (docs/routing.md, "Estimator")',
    }),
    rate_known: Type.Boolean({ description: 'false: fewer than min_samples outcomes at every key (the prior 0.5)' }),
    samples: Type.Integer(),
    dimension_key: Nullable(Type.String()),
    expected_cost: Nullable(
      Type.Object(
        { amount: Type.Integer(), exact: Type.String(), currency: Type.String() },
        { additionalProperties: false, title: 'DryRunExpectedCost', description: 'From its fee schedule' },
      ),
    ),
    cost_unknown_because: Nullable(
      StringEnum(['no_fee_schedule', 'no_matching_entry', 'fixed_fee_in_another_currency'] as const),
    ),
  },
  { additionalProperties: false, title: 'FlowDryRunServiceFigures' },
);
export type DryRunServiceFigures = Static<typeof DryRunServiceFiguresSchema>;

/** Why the first service would be tried first. */
export const DryRunChoiceSchema = Type.Object(
  {
    payment_service_id: Uuid(),
    by: StringEnum([
      'first_eligible_by_position',
      'rule_order',
      'weighted_draw',
      'success_rate',
      'least_cost',
    ] as const),
    reason: Type.String(),
  },
  { additionalProperties: false, title: 'FlowDryRunChoice' },
);
export type DryRunChoice = Static<typeof DryRunChoiceSchema>;

/** What the engine would do if the first service declined with `authentication_required` (stepUpVerdict). */
export const DryRunStepUpSchema = Type.Object(
  {
    if_declined_at: Uuid({ description: 'The service assumed to decline: the first one tried' }),
    error_code: Type.Literal('authentication_required'),
    stepped_up: Type.Boolean(),
    to: Nullable(
      Uuid({
        description: 'Where the step-up would go: the same service, or the next of the rule that can authenticate',
      }),
    ),
    same_service: Nullable(Type.Boolean()),
    authenticated_by: Nullable(StringEnum(['sandbox-3ds-server', 'payment-service'] as const)),
    refused_because: Nullable(
      Type.String({
        description:
          'Why not: no_rule, not_allowed_by_rule, buyer_not_present, not_a_card, no_redirect_url, already_authenticated, max_attempts_reached, no_service_authenticates, ...',
      }),
    ),
  },
  { additionalProperties: false, title: 'FlowDryRunStepUp' },
);
export type DryRunStepUp = Static<typeof DryRunStepUpSchema>;
