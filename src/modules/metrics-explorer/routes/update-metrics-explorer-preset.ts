import { defineRoute } from '../../../http/define-route.ts';
import { PresetParams, PresetSchema, UpdatePresetBody } from '../metrics-explorer.schemas.ts';
import { updatePreset } from '../presets.service.ts';

export const updateMetricsExplorerPreset = defineRoute({
  operationId: 'updateMetricsExplorerPreset',
  method: 'PUT',
  url: '/metrics-explorer/:source/presets/:preset_id',
  scope: 'metrics-explorer.write',
  tags: ['metrics-explorer'],
  summary: 'Rename a preset',
  description: 'Only the name changes; save a new preset for other filters.',
  status: 200,
  params: PresetParams,
  body: UpdatePresetBody,
  response: PresetSchema,
  handler: ({ ctx, params, body }) => updatePreset(ctx, params.source, params.preset_id, body),
});
