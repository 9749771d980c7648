import { defineRoute } from '../../../http/define-route.ts';
import { FlowActionParams, FlowRuleListSchema, ReorderFlowRulesBody } from '../flows.schemas.ts';
import { reorderFlowRules as reorder } from '../flow-rules.service.ts';

export const reorderFlowRules = defineRoute({
  operationId: 'reorderFlowRules',
  method: 'PUT',
  url: '/flows/:flow/actions/:action/rule-order',
  scope: 'flows.write',
  tags: ['flows'],
  summary: "Set the order of a flow action's rules",
  description:
    '`rule_ids` lists every rule of the flow action once, first evaluated first; the answer is the whole list in its new order.',
  status: 200,
  params: FlowActionParams,
  body: ReorderFlowRulesBody,
  response: FlowRuleListSchema,
  handler: ({ ctx, params, body }) => reorder(ctx, params, body),
});
