import { defineRoute } from '../../../http/define-route.ts';
import { ListMonitoringMetricsQuery, MonitoringMetricsSchema } from '../monitoring.schemas.ts';
import { listMonitoringMetrics as list } from '../monitoring-metrics.service.ts';

export const listMonitoringMetrics = defineRoute({
  operationId: 'listMonitoringMetrics',
  method: 'GET',
  url: '/monitoring/metrics',
  scope: 'monitoring.read',
  tags: ['monitoring'],
  summary: 'List monitoring metrics with their samples, newest first',
  description:
    'Each metric carries its samples within `samples_timestamp_interval` (required); `search` matches part of the name.',
  status: 200,
  querystring: ListMonitoringMetricsQuery,
  response: MonitoringMetricsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
