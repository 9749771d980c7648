import { defineRoute } from '../../../http/define-route.ts';
import { MetricParams, MonitoringMetricSchema } from '../monitoring.schemas.ts';
import { deleteMonitoringMetric as remove } from '../monitoring-metrics.service.ts';

export const deleteMonitoringMetric = defineRoute({
  operationId: 'deleteMonitoringMetric',
  method: 'DELETE',
  url: '/monitoring/metrics/:metric_id',
  scope: 'monitoring.write',
  tags: ['monitoring'],
  summary: 'Stop watching a metric',
  description: 'Answers 200 with the metric as it was. Its samples go; its incidents stay, with metric_id null.',
  status: 200,
  params: MetricParams,
  response: MonitoringMetricSchema,
  handler: ({ ctx, params }) => remove(ctx, params.metric_id),
});
