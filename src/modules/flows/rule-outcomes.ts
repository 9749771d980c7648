import type { FlowActionName, FlowConditionJson, FlowName } from '../../db/schema-flow-rules.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, fieldRefusal } from '../../errors/app-error.ts';
import { findPaymentServiceRecord } from '../payment-services/payment-services.service.ts';
import { FLOW_ACTIONS, HARD_DECLINES } from './flow-decisions.ts';
import { conditionProblem } from './rule-conditions.ts';
import type { CreateFlowRuleBody } from './flows.schemas.ts';

/**
 * The checks of a rule that the request schema cannot make: each refusal names the field and why.
 */

/** The flow has this action (checkout selects payment options; transactions route, decline early, skip 3DS). */
export function checkFlowAction(flow: FlowName, action: FlowActionName): void {
  const actions = FLOW_ACTIONS[flow];
  if (!actions.includes(action)) {
    throw fieldRefusal(
      'path',
      '/action',
      `The ${flow} flow has no ${action} action; its actions are ${actions.join(', ')}`,
      'enum',
    );
  }
}

export function checkConditions(flow: FlowName, conditions: FlowConditionJson[]): FlowConditionJson[] {
  return conditions.map((condition, i) => {
    const problem = conditionProblem(condition, flow);
    if (problem)
      throw fieldRefusal('body', `/conditions/${i}${problem.pointer}`, `conditions[${i}]: ${problem.message}`);
    return condition.field === 'metadata'
      ? condition
      : { field: condition.field, operator: condition.operator, value: condition.value };
  });
}

type Outcome = CreateFlowRuleBody['outcome'];

const FIELDS_OF: Record<FlowActionName, ReadonlyArray<keyof Outcome>> = {
  'route-transaction': [
    'payment_service_ids',
    'weights',
    'max_attempts',
    'time_budget_seconds',
    'retry_on_declines',
    'strategy',
    'min_samples',
    'exploration_percent',
    'window_minutes',
    'breaker',
    'cost_margin_percent',
    'step_up_on_soft_decline',
  ],
  'decline-early': ['reason'],
  'skip-3ds': [],
  'select-payment-options': ['payment_options'],
};

/** The outcome as stored: only the fields of its action, services checked against the merchant account. */
export async function checkOutcome(
  db: Executor,
  merchantAccountId: string,
  action: FlowActionName,
  outcome: Outcome,
): Promise<Outcome> {
  const allowed = FIELDS_OF[action];
  for (const key of Object.keys(outcome) as Array<keyof Outcome>) {
    if (outcome[key] !== undefined && !allowed.includes(key)) {
      throw fieldRefusal(
        'body',
        `/outcome/${key}`,
        `outcome.${key} does not apply to ${action}${allowed.length ? ` (its fields: ${allowed.join(', ')})` : ' (it takes no outcome fields)'}`,
      );
    }
  }
  if (action === 'route-transaction') await checkRoute(db, merchantAccountId, outcome);
  if (action === 'select-payment-options') {
    const options = outcome.payment_options;
    if (!options)
      throw fieldRefusal(
        'body',
        '/outcome/payment_options',
        'select-payment-options needs outcome.payment_options: the methods to offer, in order',
        'missing',
      );
    const twice = options.find((o, i) => options.indexOf(o) !== i);
    if (twice) throw fieldRefusal('body', '/outcome/payment_options', `outcome.payment_options lists ${twice} twice`);
  }
  return Object.fromEntries(Object.entries(outcome).filter(([, v]) => v !== undefined)) as Outcome;
}

async function checkRoute(db: Executor, merchantAccountId: string, outcome: Outcome): Promise<void> {
  const ids = outcome.payment_service_ids;
  if (!ids || ids.length === 0)
    throw fieldRefusal(
      'body',
      '/outcome/payment_service_ids',
      'route-transaction needs outcome.payment_service_ids: at least one payment service, in the order to try them',
      'missing',
    );
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice)
    throw fieldRefusal('body', '/outcome/payment_service_ids', `outcome.payment_service_ids lists ${twice} twice`);
  for (const [i, id] of ids.entries()) {
    const service = await findPaymentServiceRecord(db, merchantAccountId, id);
    // As everywhere, another merchant account's resource is one that does not exist: 404.
    if (!service)
      throw new AppError('not_found', `The payment service ${id} does not exist in this merchant account`, {
        details: [
          {
            location: 'body',
            pointer: `/outcome/payment_service_ids/${i}`,
            message: 'No such payment service',
            type: 'not_found',
          },
        ],
      });
    if (service.is_deleted)
      throw fieldRefusal(
        'body',
        `/outcome/payment_service_ids/${i}`,
        `The payment service ${id} (${service.display_name}) has been deleted`,
        'deleted',
      );
  }
  const weights = outcome.weights;
  if (weights) {
    if (weights.length !== ids.length)
      throw fieldRefusal(
        'body',
        '/outcome/weights',
        `outcome.weights has ${weights.length} entries for ${ids.length} payment services: give one weight per service`,
      );
    const sum = weights.reduce((a, b) => a + b, 0);
    if (sum !== 100)
      throw fieldRefusal('body', '/outcome/weights', `outcome.weights must sum to 100, they sum to ${sum}`);
  }
  checkStrategy(outcome);
  const hard = outcome.retry_on_declines?.find((code) => (HARD_DECLINES as readonly string[]).includes(code));
  if (hard)
    throw fieldRefusal(
      'body',
      '/outcome/retry_on_declines',
      `${hard} is a hard decline (the card itself is refused): it is never retried at another payment service`,
    );
}

/** The strategies each parameter applies to. */
const STRATEGY_FIELDS = {
  min_samples: ['success_rate', 'least_cost'],
  window_minutes: ['success_rate', 'least_cost'],
  exploration_percent: ['success_rate'],
  cost_margin_percent: ['least_cost'],
} as const satisfies Partial<Record<keyof Outcome, readonly string[]>>;

/** `success_rate` and `least_cost` choose the first service themselves (no weights); their parameters need them. */
function checkStrategy(outcome: Outcome): void {
  const strategy = outcome.strategy ?? 'static';
  if (strategy !== 'static' && outcome.weights) {
    const chooser = strategy === 'success_rate' ? 'the success rates choose' : 'the expected costs and rates choose';
    throw fieldRefusal(
      'body',
      '/outcome/weights',
      `outcome.weights cannot be combined with strategy ${strategy}: ${chooser} the first service; leave weights out or use strategy static`,
    );
  }
  for (const [field, strategies] of Object.entries(STRATEGY_FIELDS) as Array<[keyof Outcome, readonly string[]]>) {
    if (outcome[field] === undefined || strategies.includes(strategy)) continue;
    const which = strategies.length === 1 ? `strategy ${strategies[0]}` : `strategies ${strategies.join(' and ')}`;
    throw fieldRefusal(
      'body',
      `/outcome/${field}`,
      `outcome.${field} applies to ${which} only (this rule's strategy is ${strategy})`,
    );
  }
}
