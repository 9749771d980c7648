import { defineRoute } from '../../../http/define-route.ts';
import { FlowRuleParams, FlowRuleSchema, UpdateFlowRuleBody } from '../flows.schemas.ts';
import { updateFlowRule as update } from '../flow-rules.service.ts';

export const updateFlowRule = defineRoute({
  operationId: 'updateFlowRule',
  method: 'PUT',
  url: '/flows/:flow/actions/:action/rules/:rule_id',
  scope: 'flows.write',
  tags: ['flows'],
  summary: 'Update a flow rule',
  description:
    'Partial update: fields left out keep their value; `conditions` and `outcome`, when sent, replace the stored value whole; `position` moves the rule (the others keep their order); `enabled: false` keeps the rule but skips it.',
  status: 200,
  params: FlowRuleParams,
  body: UpdateFlowRuleBody,
  bodyOptional: true,
  response: FlowRuleSchema,
  handler: ({ ctx, params, body }) => update(ctx, params, params.rule_id, body),
});
