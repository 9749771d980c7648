import { defineRoute } from '../../../http/define-route.ts';
import { ListThreeDsScenariosQuery, ThreeDsScenariosSchema } from '../three-ds-scenarios.schemas.ts';
import { listThreeDsScenarios as list } from '../three-ds-scenarios.service.ts';

export const listThreeDsScenarios = defineRoute({
  operationId: 'listThreeDsScenarios',
  method: 'GET',
  url: '/three-ds-scenarios',
  scope: 'three-ds-scenarios.read',
  tags: ['three-ds-scenarios'],
  summary: 'List simulated 3DS scenarios, newest first (sandbox only)',
  description:
    'The public client calls this operation `get_three_ds_scenario`. Card number conditions are masked. 403 in production.',
  status: 200,
  querystring: ListThreeDsScenariosQuery,
  response: ThreeDsScenariosSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
