import { defineRoute } from '../../../http/define-route.ts';
import { DryRunFlowBody, DryRunResultSchema, FlowParams } from '../flows.schemas.ts';
import { dryRunFlow as run } from '../dry-run.service.ts';

export const dryRunFlow = defineRoute({
  operationId: 'dryRunFlow',
  method: 'POST',
  url: '/flows/:flow/dry-run',
  scope: 'flows.read',
  tags: ['flows'],
  summary: "Show what a flow's rules would decide for a hypothetical transaction",
  description:
    'For each action of the flow, in evaluation order: the rule that would match, every rule with why it did not (disabled, its failed conditions, or an earlier rule matched), ' +
    'and for route-transaction the payment services in the order they would be tried, then those that would not be, with the reason; the circuit, rate and cost of each service now (`current`), why the first won (`chosen`), and what a decline asking for authentication at the first service would lead to (`step_up`). Reads the stored rules (a change shows at once); changes nothing. ' +
    'No card number: send the BIN. A weighted split is drawn from `external_identifier` as for a real transaction (without one, a real transaction draws by its own id; the dry run draws for the key `dry-run`).',
  status: 200,
  params: FlowParams,
  body: DryRunFlowBody,
  response: DryRunResultSchema,
  idempotent: false,
  handler: ({ ctx, params, body }) => run(ctx, params.flow, body),
});
