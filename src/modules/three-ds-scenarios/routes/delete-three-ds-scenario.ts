import { defineRoute } from '../../../http/define-route.ts';
import { ThreeDsScenarioParams } from '../three-ds-scenarios.schemas.ts';
import { deleteThreeDsScenario as remove } from '../three-ds-scenarios.service.ts';

export const deleteThreeDsScenario = defineRoute({
  operationId: 'deleteThreeDsScenario',
  method: 'DELETE',
  url: '/three-ds-scenarios/:three_ds_scenario_id',
  scope: 'three-ds-scenarios.write',
  tags: ['three-ds-scenarios'],
  summary: 'Delete a simulated 3DS scenario (sandbox only)',
  description: '403 in production.',
  status: 204,
  params: ThreeDsScenarioParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.three_ds_scenario_id),
});
