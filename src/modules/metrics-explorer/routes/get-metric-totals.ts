import { defineRoute } from '../../../http/define-route.ts';
import { MetricParams, TotalsQuery, TotalsSchema } from '../metrics-explorer.schemas.ts';
import { metricTotals } from '../metrics.service.ts';

export const getMetricTotals = defineRoute({
  operationId: 'getMetricTotals',
  method: 'GET',
  url: '/metrics-explorer/:source/metrics/:metric/totals',
  scope: 'metrics-explorer.read',
  tags: ['metrics-explorer'],
  summary: 'A metric over time, with the previous period of the same length',
  description:
    'Buckets are minutes for windows up to 2 hours, hours up to 7 days and days beyond, in UTC, counted by creation time. ' +
    '`auth_rate` = authorized ÷ (authorized + declined − flow declines); `volume` needs exactly one `currency`. Filters repeat their key (docs/insights.md).',
  status: 200,
  params: MetricParams,
  querystring: TotalsQuery,
  response: TotalsSchema,
  handler: ({ ctx, params, query }) => metricTotals(ctx, params.source, params.metric, query),
});
