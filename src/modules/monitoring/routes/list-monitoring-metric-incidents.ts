import { defineRoute } from '../../../http/define-route.ts';
import { ListIncidentsQuery, MetricParams, MonitoringIncidentsSchema } from '../monitoring.schemas.ts';
import { listIncidents } from '../incidents.service.ts';

export const listMonitoringMetricIncidents = defineRoute({
  operationId: 'listMonitoringMetricIncidents',
  method: 'GET',
  url: '/monitoring/metrics/:metric_id/incidents',
  scope: 'monitoring.read',
  tags: ['monitoring'],
  summary: "List a metric's incidents, newest first",
  status: 200,
  params: MetricParams,
  querystring: ListIncidentsQuery,
  response: MonitoringIncidentsSchema,
  handler: ({ ctx, params, query }) => listIncidents(ctx, query, params.metric_id),
});
