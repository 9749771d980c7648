import { defineRoute } from '../../../http/define-route.ts';
import { PresetParams } from '../metrics-explorer.schemas.ts';
import { deletePreset } from '../presets.service.ts';

export const deleteMetricsExplorerPreset = defineRoute({
  operationId: 'deleteMetricsExplorerPreset',
  method: 'DELETE',
  url: '/metrics-explorer/:source/presets/:preset_id',
  scope: 'metrics-explorer.write',
  tags: ['metrics-explorer'],
  summary: 'Delete a preset',
  status: 204,
  params: PresetParams,
  response: null,
  handler: ({ ctx, params }) => deletePreset(ctx, params.source, params.preset_id),
});
