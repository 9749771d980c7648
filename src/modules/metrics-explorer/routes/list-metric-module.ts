import { defineRoute } from '../../../http/define-route.ts';
import { ModuleParams, ModuleQuery, ModulesSchema } from '../metrics-explorer.schemas.ts';
import { metricModule } from '../metrics.service.ts';

export const listMetricModule = defineRoute({
  operationId: 'listMetricModule',
  method: 'GET',
  url: '/metrics-explorer/:source/metrics/:metric/modules/:module',
  scope: 'metrics-explorer.read',
  tags: ['metrics-explorer'],
  summary: 'A metric broken down by one dimension, largest first',
  description:
    'One item per value of the dimension (null for transactions without one) over `datetime_range`, with the same filters as the totals.',
  status: 200,
  params: ModuleParams,
  querystring: ModuleQuery,
  response: ModulesSchema,
  handler: ({ ctx, params, query }) => metricModule(ctx, params.source, params.metric, params.module, query),
});
