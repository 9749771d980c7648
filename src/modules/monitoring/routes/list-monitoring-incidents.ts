import { defineRoute } from '../../../http/define-route.ts';
import { ListIncidentsQuery, MonitoringIncidentsSchema } from '../monitoring.schemas.ts';
import { listIncidents } from '../incidents.service.ts';

export const listMonitoringIncidents = defineRoute({
  operationId: 'listMonitoringIncidents',
  method: 'GET',
  url: '/monitoring/incidents',
  scope: 'monitoring.read',
  tags: ['monitoring'],
  summary: 'List incidents of every metric, newest first',
  description: '`timestamp_interval` keeps the incidents opened within it. Closed incidents are kept 365 days.',
  status: 200,
  querystring: ListIncidentsQuery,
  response: MonitoringIncidentsSchema,
  handler: ({ ctx, query }) => listIncidents(ctx, query),
});
