import { defineRoute } from '../../../http/define-route.ts';
import { AuditLogsSchema, ListAuditLogsQuery } from '../audit-logs.schemas.ts';
import { listAuditLogs as list } from '../audit-logs.service.ts';

export const listAuditLogs = defineRoute({
  operationId: 'listAuditLogs',
  method: 'GET',
  url: '/audit-logs',
  scope: 'audit-logs.read',
  tags: ['audit-logs'],
  summary: 'List the activity on the merchant account, newest first',
  description:
    'Every create, update, delete, void, cancel and capture made through the API, with its actor. Filters: action, user_id (the API key pair id), resource_type.',
  status: 200,
  querystring: ListAuditLogsQuery,
  response: AuditLogsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
