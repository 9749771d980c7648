import { defineRoute } from '../../../http/define-route.ts';
import { CreateMonitoringMetricBody, MonitoringMetricSchema } from '../monitoring.schemas.ts';
import { createMonitoringMetric as create } from '../monitoring-metrics.service.ts';

export const createMonitoringMetric = defineRoute({
  operationId: 'createMonitoringMetric',
  method: 'POST',
  url: '/monitoring/metrics',
  scope: 'monitoring.write',
  tags: ['monitoring'],
  summary: 'Watch the authorization rate of a slice of transactions',
  description:
    'Sampled every minute over `datetime_range` (5 to 60 minutes, ending at the sample); unhealthy samples by the threshold policy open incidents by the debouncing policy (docs/insights.md).',
  status: 201,
  body: CreateMonitoringMetricBody,
  response: MonitoringMetricSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
