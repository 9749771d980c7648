import { defineRoute } from '../../../http/define-route.ts';
import { MetricParams, MonitoringMetricSchema, UpdateMonitoringMetricBody } from '../monitoring.schemas.ts';
import { updateMonitoringMetric as update } from '../monitoring-metrics.service.ts';

export const updateMonitoringMetric = defineRoute({
  operationId: 'updateMonitoringMetric',
  method: 'PUT',
  url: '/monitoring/metrics/:metric_id',
  scope: 'monitoring.write',
  tags: ['monitoring'],
  summary: 'Rename a monitoring metric or change its policies',
  description:
    'Fields left out keep their value; the spec cannot change. A changed policy applies from the next sample.',
  status: 200,
  params: MetricParams,
  body: UpdateMonitoringMetricBody,
  response: MonitoringMetricSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.metric_id, body),
});
