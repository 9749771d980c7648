import { Type } from 'typebox';
import { Nullable, Uuid } from '../../http/schemas/common.ts';

/**
 * What a candidate's estimated rate is made of, for success-rate and least-cost routing alike
 * (docs/routing.md, "Success-rate routing"): the approval rate over the rule's window and the
 * availability over the health window.
 */
export const RateEvidenceFields = {
  dimension_key: Nullable(
    Type.String({
      description:
        'The most specific key with min_samples answers whose counts are used (`*`: the service overall); null: none has, the uniform prior Beta(1, 1)',
    }),
  ),
  successes: Type.Integer(),
  failures: Type.Integer({
    description: 'Soft declines (card-caused declines and technical errors are not counted here)',
  }),
  samples: Type.Integer({ description: 'successes + failures: the answers the approval rate is judged by' }),
  approval_rate: Type.Number({ description: 'Posterior mean of the approval rate, (successes + 1) / (samples + 2)' }),
  recent_errors: Type.Integer({
    description: 'Technical errors (failures, timeouts, unknown outcomes) at the service within the health window',
  }),
  recent_calls: Type.Integer({ description: 'Calls (answers and errors) at the service within the health window' }),
  availability: Type.Number({
    description: '(recent answers + 1) / (recent_calls + 1); 1 without a recent error',
  }),
  estimated_rate: Type.Number({ description: 'approval_rate × availability' }),
};

/** One candidate of success-rate routing, as the dry run and the decision trace show it. */
export const SuccessRateCandidateSchema = Type.Object(
  {
    payment_service_id: Uuid(),
    ...RateEvidenceFields,
    sampled_value: Type.Number({
      description: "This decision's Thompson sample: a draw of Beta(successes + 1, failures + 1) × availability",
    }),
  },
  { additionalProperties: false, title: 'SuccessRateCandidate' },
);

/** Why success-rate routing chose its first service (`success_rate` of a route-transaction decision). */
export const SuccessRateDecisionSchema = Type.Object(
  {
    seed: Type.String({
      description:
        "What the generator was seeded with: the transaction's id (the dry run: external_identifier, else `dry-run`)",
    }),
    draw: Type.Number({ description: 'The first uniform draw; below exploration_percent / 100 the decision explores' }),
    explored: Type.Boolean({
      description: 'true: the highest sampled value went first (exploration); false: the highest estimated rate',
    }),
    min_samples: Type.Integer(),
    exploration_percent: Type.Integer(),
    window_minutes: Type.Integer(),
    chosen: Uuid(),
    reason: Type.String(),
    candidates: Type.Array(SuccessRateCandidateSchema, { description: "The eligible services, in the rule's order" }),
  },
  { additionalProperties: false, title: 'SuccessRateDecision' },
);
