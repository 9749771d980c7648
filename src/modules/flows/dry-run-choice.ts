import type { DryRunChoice } from './dry-run.schemas.ts';
import { splitBucket } from './flow-decisions.ts';

/**
 * Why the dry run's first service would be tried first, for every strategy (docs/routing.md, "Dry
 * run"). Pure: it reads what routing decided (flow-route.ts's inputs and trace), so the sentence
 * says what the engine did, not a second opinion.
 */
export interface ChoiceInputs {
  /** The matched rule's weights (null: none, or no rule); `ruled`: a route-transaction rule matched. */
  ruled: boolean;
  weights: readonly number[] | null;
  splitKey: string;
  /** The order routing started from: the rule's (after its weighted draw), else the services by position. */
  order: readonly string[];
  eligible: readonly string[];
  skipped: ReadonlyArray<{ payment_service_id: string; reason: string }>;
  circuitOpenKept?: readonly string[];
  /** The strategy that ordered the eligible services, and its own explanation's reason. */
  ranked: { strategy: 'success_rate' | 'least_cost'; reason: string } | null;
}

const aheadOf = (input: ChoiceInputs, first: string): string => {
  const ahead = input.order.slice(0, input.order.indexOf(first));
  const why = input.skipped
    .filter((s) => ahead.includes(s.payment_service_id))
    .map((s) => `${s.payment_service_id} ${s.reason}`);
  return why.length > 0 ? ` (skipped ahead of it: ${why.join(', ')})` : '';
};

/** Null when no service is eligible (a transaction would be refused). */
export function dryRunChoice(input: ChoiceInputs): DryRunChoice | null {
  const first = input.eligible[0];
  if (first === undefined) return null;
  const kept = input.circuitOpenKept?.includes(first)
    ? '; kept although its circuit is open: no eligible service has a closed circuit'
    : '';
  const choice = (by: DryRunChoice['by'], reason: string): DryRunChoice => ({
    payment_service_id: first,
    by,
    reason: reason + kept,
  });
  if (input.ranked) return choice(input.ranked.strategy, input.ranked.reason);
  if (!input.ruled)
    return choice(
      'first_eligible_by_position',
      `the first eligible service by position: no route-transaction rule matched${aheadOf(input, first)}`,
    );
  if (!input.weights)
    return choice('rule_order', `the first eligible service in the rule's order${aheadOf(input, first)}`);
  const drawn = input.order[0]!;
  const bucket = splitBucket(input.splitKey);
  const draw = `the key "${input.splitKey}" draws bucket ${bucket} of 0..99 (weights ${input.weights.join('/')})`;
  return first === drawn
    ? choice('weighted_draw', `drawn by weight: ${draw}`)
    : choice(
        'weighted_draw',
        `${draw}, which is ${drawn}'s share; the next eligible in the rule's order${aheadOf(input, first)}`,
      );
}
