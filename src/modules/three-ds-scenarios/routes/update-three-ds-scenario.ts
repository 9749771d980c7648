import { defineRoute } from '../../../http/define-route.ts';
import {
  ThreeDsScenarioParams,
  ThreeDsScenarioSchema,
  UpdateThreeDsScenarioBody,
} from '../three-ds-scenarios.schemas.ts';
import { updateThreeDsScenario as update } from '../three-ds-scenarios.service.ts';

export const updateThreeDsScenario = defineRoute({
  operationId: 'updateThreeDsScenario',
  method: 'PUT',
  url: '/three-ds-scenarios/:three_ds_scenario_id',
  scope: 'three-ds-scenarios.write',
  tags: ['three-ds-scenarios'],
  summary: 'Update a simulated 3DS scenario (sandbox only)',
  description:
    'Partial update: `conditions` and `outcome`, when sent, each replace the stored value whole; a field left out keeps its value, null is refused (400). 403 in production.',
  status: 200,
  params: ThreeDsScenarioParams,
  body: UpdateThreeDsScenarioBody,
  bodyOptional: true,
  response: ThreeDsScenarioSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.three_ds_scenario_id, body),
});
