import { defineRoute } from '../../../http/define-route.ts';
import { FlowActionParams, FlowRulesSchema, ListFlowRulesQuery } from '../flows.schemas.ts';
import { listFlowRules as list } from '../flow-rules.service.ts';

export const listFlowRules = defineRoute({
  operationId: 'listFlowRules',
  method: 'GET',
  url: '/flows/:flow/actions/:action/rules',
  scope: 'flows.read',
  tags: ['flows'],
  summary: 'List the rules of a flow action in evaluation order',
  description: 'First evaluated first (`position` 1), in cursor pages.',
  status: 200,
  params: FlowActionParams,
  querystring: ListFlowRulesQuery,
  response: FlowRulesSchema,
  handler: ({ ctx, params, query }) => list(ctx, params, query),
});
