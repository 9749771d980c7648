import { defineRoute } from '../../../http/define-route.ts';
import { PresetsSchema, SourceParams } from '../metrics-explorer.schemas.ts';
import { listPresets } from '../presets.service.ts';

export const listMetricsExplorerPresets = defineRoute({
  operationId: 'listMetricsExplorerPresets',
  method: 'GET',
  url: '/metrics-explorer/:source/presets',
  scope: 'metrics-explorer.read',
  tags: ['metrics-explorer'],
  summary: 'The saved presets of a source, oldest first',
  description: 'A plain array: a source holds at most 10 presets.',
  status: 200,
  params: SourceParams,
  response: PresetsSchema,
  handler: ({ ctx, params }) => listPresets(ctx, params.source),
});
