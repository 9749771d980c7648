import { Type, type Static } from 'typebox';
import type { FlowRuleRow } from '../../db/schema-flow-rules.ts';
import {
  Amount,
  Country,
  Currency,
  DateTime,
  ItemList,
  ListEnvelope,
  Nullable,
  PaginationQuery,
  StringEnum,
  Uuid,
} from '../../http/schemas/common.ts';
import { CARD_TYPES } from '../../lib/cards/schemes.ts';
import { PAYMENT_SOURCES } from '../transactions/transaction.schema.ts';
import { MAX_WINDOW_MINUTES } from '../routing-stats/sliding-window.ts';
import { COST_MARGIN_DEFAULT, ROUTE_STRATEGIES, SUCCESS_RATE_DEFAULTS } from './flow-decisions.ts';
import { LeastCostCandidateSchema, LeastCostDecisionSchema } from './least-cost.schemas.ts';
import {
  DryRunChoiceSchema,
  DryRunRedirectUrl,
  DryRunServiceFiguresSchema,
  DryRunStepUpSchema,
} from './dry-run.schemas.ts';
import { SuccessRateCandidateSchema, SuccessRateDecisionSchema } from './success-rate.schemas.ts';
import { VelocityTraceSchema } from './velocity.schemas.ts';
import { ANTI_FRAUD_DECISIONS, CONDITION_FIELDS, CONDITION_OPERATORS, THREE_DS_STATUSES } from './rule-conditions.ts';

export const FLOW_RULE_TYPE = 'flow-rule';
export const FLOWS = ['checkout', 'card-transaction', 'non-card-transaction', 'redirect-transaction'] as const;
export const FLOW_ACTION_NAMES = ['select-payment-options', 'route-transaction', 'decline-early', 'skip-3ds'] as const;
/** Rules per flow and action: every transaction evaluates them (from the cache), so the list stays bounded. */
export const MAX_RULES_PER_ACTION = 200;

export const FlowParams = Type.Object({ flow: StringEnum(FLOWS, { description: 'The flow' }) });
export const FlowActionParams = Type.Object({
  flow: StringEnum(FLOWS, { description: 'The flow' }),
  action: StringEnum(FLOW_ACTION_NAMES, { description: 'The action whose rules these are' }),
});
export const FlowRuleParams = Type.Object({
  ...FlowActionParams.properties,
  rule_id: Uuid({ description: 'ID of the rule' }),
});

export const ConditionSchema = Type.Object(
  {
    field: StringEnum(CONDITION_FIELDS, {
      description: 'What the condition looks at (docs/routing.md lists the operators and values of each)',
    }),
    operator: StringEnum(CONDITION_OPERATORS),
    key: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 50, description: 'metadata conditions: the metadata key' })),
    ),
    value: Type.Unknown({
      description:
        'A string, boolean, list of strings, a range object ({currency, min, max} for amount, {min, max} digit strings for bin), or for velocity {key, measure, window_minutes, threshold, currency} (docs/risk.md, "Velocity limits")',
    }),
  },
  { additionalProperties: false, title: 'FlowRuleCondition' },
);

const ServiceIds = Type.Array(Uuid(), {
  minItems: 1,
  maxItems: 10,
  description: 'route-transaction: payment services in the order they are tried (the rest are fallbacks)',
});
const DeclineCode = Type.String({ minLength: 1, maxLength: 100, pattern: '^[a-z0-9_]+$' });

const outcomeFields = {
  payment_service_ids: Type.Optional(ServiceIds),
  weights: Type.Optional(
    Nullable(
      Type.Array(Type.Integer({ minimum: 0, maximum: 100 }), {
        minItems: 1,
        maxItems: 10,
        description:
          'route-transaction: a weighted split, one weight per service, summing to 100; the first service tried is drawn by weight per transaction',
      }),
    ),
  ),
  max_attempts: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10,
      description: 'route-transaction: attempts at most, the first included (default 3)',
    }),
  ),
  time_budget_seconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 120,
      description: 'route-transaction: no new attempt starts after this many seconds (default 30)',
    }),
  ),
  retry_on_declines: Type.Optional(
    Type.Array(DeclineCode, {
      maxItems: 50,
      description:
        'route-transaction: declines (error_code) that fail over to the next service; default do_not_honor, issuer_unavailable, try_again_later, processing_error',
    }),
  ),
  strategy: Type.Optional(
    StringEnum(ROUTE_STRATEGIES, {
      description:
        'route-transaction: how the first service is chosen. `static` (default): the listed order, or the weighted draw; `success_rate`: by recent authorization success rate for transactions like this one (docs/routing.md, "Success-rate routing"); `least_cost`: the lowest expected fee among the services whose rate is within cost_margin_percent of the best (docs/routing.md, "Least-cost routing")',
    }),
  ),
  min_samples: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100_000,
      description: `route-transaction, success_rate and least_cost: outcomes a dimension key needs before its rate is used (default ${SUCCESS_RATE_DEFAULTS.minSamples}); coarser keys, then a uniform prior, otherwise`,
    }),
  ),
  exploration_percent: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 50,
      description: `route-transaction, success_rate: the share of transactions (percent) whose first service is chosen by Thompson sampling rather than the highest estimated rate (default ${SUCCESS_RATE_DEFAULTS.explorationPercent})`,
    }),
  ),
  window_minutes: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_WINDOW_MINUTES,
      description: `route-transaction, success_rate and least_cost: the sliding window the rates are counted over, in one-minute buckets (default ${SUCCESS_RATE_DEFAULTS.windowMinutes})`,
    }),
  ),
  cost_margin_percent: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 100,
      description: `route-transaction, least_cost: points of authorization rate below the best rate that a cheaper service may be and still go first (default ${COST_MARGIN_DEFAULT})`,
    }),
  ),
  breaker: Type.Optional(
    Type.Boolean({
      description:
        "route-transaction: false keeps the rule's services in routing whatever their circuit breakers say (default true: a service whose circuit is open is skipped while another can take the transaction)",
    }),
  ),
  step_up_on_soft_decline: Type.Optional(
    Type.Boolean({
      description:
        'route-transaction: a decline asking for authentication (authentication_required) of a customer-initiated card payment with a redirect_url is retried once with 3DS, at the same service or the next of the rule that can authenticate (default false; docs/routing.md, "Step-up authentication on retry")',
    }),
  ),
  reason: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "decline-early: why, kept as the transaction's raw_response_description",
    }),
  ),
  payment_options: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z0-9][a-z0-9-]*$' }), {
      minItems: 1,
      maxItems: 50,
      description: 'select-payment-options: the methods offered, in this order',
    }),
  ),
};

export const OutcomeSchema = Type.Object(outcomeFields, {
  additionalProperties: false,
  title: 'FlowRuleOutcome',
  description: 'What the rule does; the fields that apply depend on the action (docs/routing.md). skip-3ds takes none.',
});

const Description = Type.String({ minLength: 1, maxLength: 200 });
const Conditions = Type.Array(ConditionSchema, {
  maxItems: 25,
  description: 'All must hold; an empty list matches every transaction',
});

export const CreateFlowRuleBody = Type.Object(
  {
    description: Type.Optional(Nullable(Description)),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    position: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RULES_PER_ACTION,
        description: 'Where the rule goes (1 = first); default: last',
      }),
    ),
    conditions: Conditions,
    outcome: OutcomeSchema,
  },
  { additionalProperties: false, title: 'FlowRuleCreate' },
);
export type CreateFlowRuleBody = Static<typeof CreateFlowRuleBody>;

export const UpdateFlowRuleBody = Type.Object(
  {
    description: Type.Optional(Nullable(Description)),
    enabled: Type.Optional(Type.Boolean()),
    position: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_RULES_PER_ACTION,
        description: 'Moves the rule there; the others keep their order',
      }),
    ),
    conditions: Type.Optional(Conditions),
    outcome: Type.Optional(OutcomeSchema),
  },
  { additionalProperties: false, title: 'FlowRuleUpdate' },
);
export type UpdateFlowRuleBody = Static<typeof UpdateFlowRuleBody>;

export const ReorderFlowRulesBody = Type.Object(
  {
    rule_ids: Type.Array(Uuid(), {
      minItems: 1,
      maxItems: MAX_RULES_PER_ACTION,
      description: 'Every rule of the flow action, each once, in the new order',
    }),
  },
  { additionalProperties: false, title: 'FlowRuleOrder' },
);
export type ReorderFlowRulesBody = Static<typeof ReorderFlowRulesBody>;

export const ListFlowRulesQuery = Type.Object({
  ...PaginationQuery,
  enabled: Type.Optional(Type.Boolean({ description: 'Only enabled (true) or disabled (false) rules' })),
});
export type ListFlowRulesQuery = Static<typeof ListFlowRulesQuery>;

export const FlowRuleSchema = Type.Object(
  {
    type: Type.Literal(FLOW_RULE_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    flow: StringEnum(FLOWS),
    action: StringEnum(FLOW_ACTION_NAMES),
    position: Type.Integer({ description: '1 = evaluated first' }),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    conditions: Type.Array(
      Type.Object(
        { field: Type.String(), operator: Type.String(), key: Nullable(Type.String()), value: Type.Unknown() },
        { additionalProperties: false, title: 'FlowRuleConditionResource' },
      ),
    ),
    outcome: OutcomeSchema,
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'FlowRule' },
);
export type FlowRule = Static<typeof FlowRuleSchema>;

export const FlowRulesSchema = ListEnvelope(FlowRuleSchema, 'FlowRules');
export const FlowRuleListSchema = ItemList(FlowRuleSchema, 'FlowRuleOrderResult');

export function toFlowRuleResource(row: FlowRuleRow): FlowRule {
  return {
    type: FLOW_RULE_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    flow: row.flow,
    action: row.action,
    position: row.position,
    description: row.description,
    enabled: row.enabled,
    conditions: row.conditions.map((c) => ({
      field: c.field,
      operator: c.operator,
      key: c.key ?? null,
      value: c.value,
    })),
    outcome: row.outcome as FlowRule['outcome'],
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A hypothetical transaction (or checkout) for the dry run: what the rules look at, no card number. */
export const DryRunFlowBody = Type.Object(
  {
    amount: Amount(),
    currency: Currency(),
    country: Type.Optional(Nullable(Country())),
    payment_method: Type.Optional(
      Type.Object(
        {
          method: Type.String({
            minLength: 1,
            maxLength: 50,
            pattern: '^[a-z0-9][a-z0-9-]*$',
            description: '`card`, or a redirect method such as `paypal`',
          }),
          bin: Type.Optional(
            Nullable(Type.String({ pattern: '^\\d{6,8}$', description: "The card's first 6 or 8 digits" })),
          ),
          scheme: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 50 }))),
          card_type: Type.Optional(
            Nullable(
              StringEnum(CARD_TYPES, { description: 'A dimension of success-rate routing (`credit`, `debit`, ...)' }),
            ),
          ),
          redirect_url: DryRunRedirectUrl,
        },
        { additionalProperties: false, title: 'FlowDryRunPaymentMethod' },
      ),
    ),
    payment_source: Type.Optional(StringEnum(PAYMENT_SOURCES)),
    merchant_initiated: Type.Optional(Type.Boolean()),
    is_subsequent_payment: Type.Optional(Type.Boolean()),
    metadata: Type.Optional(
      Nullable(Type.Record(Type.String({ maxLength: 50 }), Type.String({ maxLength: 200 }), { maxProperties: 20 })),
    ),
    buyer_external_identifier: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    external_identifier: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'The key of a weighted split, as for a real transaction',
        }),
      ),
    ),
    anti_fraud_decision: Type.Optional(Nullable(StringEnum(ANTI_FRAUD_DECISIONS))),
    three_d_secure_status: Type.Optional(Nullable(StringEnum(THREE_DS_STATUSES))),
    ip_address: Type.Optional(
      Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'velocity conditions keyed by ip_address' })),
    ),
    email_address: Type.Optional(
      Nullable(
        Type.String({ minLength: 1, maxLength: 320, description: 'velocity conditions keyed by email_address' }),
      ),
    ),
    buyer_id: Type.Optional(Nullable(Uuid({ description: 'velocity conditions keyed by buyer (a stored buyer)' }))),
  },
  { additionalProperties: false, title: 'FlowDryRun' },
);
export type DryRunFlowBody = Static<typeof DryRunFlowBody>;

const RuleExplanationSchema = Type.Object(
  {
    rule_id: Uuid(),
    position: Type.Integer(),
    enabled: Type.Boolean(),
    matched: Type.Boolean(),
    not_matched_because: Nullable(StringEnum(['disabled', 'conditions', 'earlier_rule_matched'] as const)),
    failed_conditions: Type.Array(
      Type.Object(
        { index: Type.Integer(), field: Type.String(), operator: Type.String(), reason: Type.String() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'FlowRuleEvaluation' },
);

const RouteStepSchema = Type.Object(
  {
    payment_service_id: Uuid(),
    display_name: Nullable(Type.String()),
    eligible: Type.Boolean(),
    skipped_because: Nullable(
      Type.String({
        description:
          'Why this service would not be tried: inactive, deleted, method_not_supported, currency_not_supported, ...',
      }),
    ),
    /** strategy success_rate: its current estimate. */
    success_rate: Type.Optional(Nullable(SuccessRateCandidateSchema)),
    /** strategy least_cost: its expected cost and rate. */
    least_cost: Type.Optional(Nullable(LeastCostCandidateSchema)),
    /** Every strategy: its circuit, rate and cost now (absent for a deleted service). */
    current: Type.Optional(DryRunServiceFiguresSchema),
  },
  { additionalProperties: false, title: 'FlowDryRunPaymentService' },
);

export const DryRunResultSchema = Type.Object(
  {
    flow: StringEnum(FLOWS),
    decisions: Type.Array(
      Type.Object(
        {
          action: StringEnum(FLOW_ACTION_NAMES),
          matched_rule_id: Nullable(Uuid()),
          outcome: Nullable(OutcomeSchema),
          rules: Type.Array(RuleExplanationSchema),
          payment_services: Type.Optional(
            Type.Array(RouteStepSchema, {
              description: 'route-transaction: the services in the order they would be tried (eligible first)',
            }),
          ),
          /** route-transaction with strategy success_rate: the candidates and why the first won. */
          success_rate: Type.Optional(SuccessRateDecisionSchema),
          /** route-transaction with strategy least_cost: the candidates' costs and rates, and why the first won. */
          least_cost: Type.Optional(LeastCostDecisionSchema),
          /** route-transaction, every strategy: why the first service would be tried first. */
          chosen: Type.Optional(DryRunChoiceSchema),
          /** route-transaction: what a decline asking for authentication at the first service would lead to. */
          step_up: Type.Optional(DryRunStepUpSchema),
          velocity: Type.Optional(
            Type.Array(VelocityTraceSchema, {
              description: "The matched rule's velocity conditions: what each counted, against its threshold",
            }),
          ),
        },
        { additionalProperties: false, title: 'FlowDryRunDecision' },
      ),
    ),
  },
  { additionalProperties: false, title: 'FlowDryRunResult' },
);
export type DryRunResult = Static<typeof DryRunResultSchema>;
