import { defineRoute } from '../../../http/define-route.ts';
import { CreateFlowRuleBody, FlowActionParams, FlowRuleSchema } from '../flows.schemas.ts';
import { createFlowRule as create } from '../flow-rules.service.ts';

export const createFlowRule = defineRoute({
  operationId: 'createFlowRule',
  method: 'POST',
  url: '/flows/:flow/actions/:action/rules',
  scope: 'flows.write',
  tags: ['flows'],
  summary: 'Add a rule to a flow action',
  description:
    'The first enabled rule whose conditions all hold decides the action (docs/routing.md). The rule goes last unless `position` says where. ' +
    'A payment service of another merchant account or a deleted one, weights that do not sum to 100, a hard decline in `retry_on_declines` ' +
    'or a condition a flow cannot know are refused (400) with the field and the reason. Every process applies the change within 5 seconds.',
  status: 201,
  params: FlowActionParams,
  body: CreateFlowRuleBody,
  response: FlowRuleSchema,
  handler: ({ ctx, params, body }) => create(ctx, params, body),
});
