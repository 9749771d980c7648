import { defineRoute } from '../../../http/define-route.ts';
import { GetMonitoringMetricQuery, MetricParams, MonitoringMetricSchema } from '../monitoring.schemas.ts';
import { getMonitoringMetric as get } from '../monitoring-metrics.service.ts';

export const getMonitoringMetric = defineRoute({
  operationId: 'getMonitoringMetric',
  method: 'GET',
  url: '/monitoring/metrics/:metric_id',
  scope: 'monitoring.read',
  tags: ['monitoring'],
  summary: 'Get a monitoring metric with its samples',
  status: 200,
  params: MetricParams,
  querystring: GetMonitoringMetricQuery,
  response: MonitoringMetricSchema,
  handler: ({ ctx, params, query }) => get(ctx, params.metric_id, query.samples_timestamp_interval),
});
