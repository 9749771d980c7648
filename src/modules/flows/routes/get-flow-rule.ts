import { defineRoute } from '../../../http/define-route.ts';
import { FlowRuleParams, FlowRuleSchema } from '../flows.schemas.ts';
import { getFlowRule as get } from '../flow-rules.service.ts';

export const getFlowRule = defineRoute({
  operationId: 'getFlowRule',
  method: 'GET',
  url: '/flows/:flow/actions/:action/rules/:rule_id',
  scope: 'flows.read',
  tags: ['flows'],
  summary: 'Get a flow rule',
  status: 200,
  params: FlowRuleParams,
  response: FlowRuleSchema,
  handler: ({ ctx, params }) => get(ctx, params, params.rule_id),
});
