import { defineRoute } from '../../../http/define-route.ts';
import { FlowRuleParams } from '../flows.schemas.ts';
import { deleteFlowRule as remove } from '../flow-rules.service.ts';

export const deleteFlowRule = defineRoute({
  operationId: 'deleteFlowRule',
  method: 'DELETE',
  url: '/flows/:flow/actions/:action/rules/:rule_id',
  scope: 'flows.write',
  tags: ['flows'],
  summary: 'Delete a flow rule',
  description: 'The rules after it move up one place.',
  status: 204,
  params: FlowRuleParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params, params.rule_id),
});
