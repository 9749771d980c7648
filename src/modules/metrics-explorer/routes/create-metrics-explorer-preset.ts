import { defineRoute } from '../../../http/define-route.ts';
import { CreatePresetBody, PresetSchema, SourceParams } from '../metrics-explorer.schemas.ts';
import { createPreset } from '../presets.service.ts';

export const createMetricsExplorerPreset = defineRoute({
  operationId: 'createMetricsExplorerPreset',
  method: 'POST',
  url: '/metrics-explorer/:source/presets',
  scope: 'metrics-explorer.write',
  tags: ['metrics-explorer'],
  summary: 'Save a metric and its filters as a preset',
  description: 'At most 10 presets per source (400 beyond); the filters are checked as the totals query checks them.',
  status: 200,
  params: SourceParams,
  body: CreatePresetBody,
  response: PresetSchema,
  handler: ({ ctx, params, body }) => createPreset(ctx, params.source, body),
});
