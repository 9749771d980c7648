import { Type } from 'typebox';
import { Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { RateEvidenceFields } from './success-rate.schemas.ts';

/** One candidate of least-cost routing, as the dry run and the decision trace show it. */
export const LeastCostCandidateSchema = Type.Object(
  {
    payment_service_id: Uuid(),
    expected_cost: Nullable(
      Type.Object(
        {
          amount: Type.Integer({ description: 'Expected fee in minor units of the currency, rounded half up' }),
          exact: Type.String({
            description: 'The exact expected fee in minor units as a decimal string (amount × percent + fixed fee)',
          }),
          currency: Type.String({ description: "The transaction's currency" }),
        },
        {
          additionalProperties: false,
          title: 'LeastCostExpectedCost',
          description: 'null: the cost is unknown (cost_unknown_because)',
        },
      ),
    ),
    cost_unknown_because: Nullable(
      StringEnum(['no_fee_schedule', 'no_matching_entry', 'fixed_fee_in_another_currency'] as const),
    ),
    fee_entry_index: Nullable(
      Type.Integer({ description: "The fee schedule entry applied (0-based index into the service's entries)" }),
    ),
    ...RateEvidenceFields,
    rate_known: Type.Boolean({ description: 'false: fewer than min_samples outcomes at every key' }),
    within_margin: Type.Boolean({
      description: 'The rate is unknown or at least the best known rate minus cost_margin_percent points',
    }),
  },
  { additionalProperties: false, title: 'LeastCostCandidate' },
);

/** Why least-cost routing chose its first service (`least_cost` of a route-transaction decision). */
export const LeastCostDecisionSchema = Type.Object(
  {
    cost_margin_percent: Type.Number(),
    min_samples: Type.Integer(),
    window_minutes: Type.Integer(),
    best_rate: Nullable(Type.Number({ description: 'The highest known estimated rate; null: no rate is known' })),
    chosen: Uuid(),
    reason: Type.String(),
    candidates: Type.Array(LeastCostCandidateSchema, { description: "The eligible services, in the rule's order" }),
  },
  { additionalProperties: false, title: 'LeastCostDecision' },
);
