import { defineRoute } from '../../../http/define-route.ts';
import { IncidentParams, MonitoringIncidentSchema, UpdateIncidentBody } from '../monitoring.schemas.ts';
import { updateIncidentNotes } from '../incidents.service.ts';

export const updateMonitoringIncident = defineRoute({
  operationId: 'updateMonitoringIncident',
  method: 'PUT',
  url: '/monitoring/incidents/:incident_id',
  scope: 'monitoring.write',
  tags: ['monitoring'],
  summary: "Set an incident's notes",
  description: '`notes` is required; null clears them.',
  status: 200,
  params: IncidentParams,
  body: UpdateIncidentBody,
  response: MonitoringIncidentSchema,
  handler: ({ ctx, params, body }) => updateIncidentNotes(ctx, params.incident_id, body.notes),
});
