import { defineRoute } from '../../../http/define-route.ts';
import { IncidentParams, MonitoringIncidentSchema } from '../monitoring.schemas.ts';
import { getIncident } from '../incidents.service.ts';

export const getMonitoringIncident = defineRoute({
  operationId: 'getMonitoringIncident',
  method: 'GET',
  url: '/monitoring/incidents/:incident_id',
  scope: 'monitoring.read',
  tags: ['monitoring'],
  summary: 'Get an incident',
  status: 200,
  params: IncidentParams,
  response: MonitoringIncidentSchema,
  handler: ({ ctx, params }) => getIncident(ctx, params.incident_id),
});
