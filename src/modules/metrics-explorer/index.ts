import type { FastifyInstance } from 'fastify';
import { createMetricsExplorerPreset } from './routes/create-metrics-explorer-preset.ts';
import { deleteMetricsExplorerPreset } from './routes/delete-metrics-explorer-preset.ts';
import { getMetricTotals } from './routes/get-metric-totals.ts';
import { listMetricModule } from './routes/list-metric-module.ts';
import { listMetricsExplorerPresets } from './routes/list-metrics-explorer-presets.ts';
import { updateMetricsExplorerPreset } from './routes/update-metrics-explorer-preset.ts';

/** Insights: the metrics explorer and its presets (docs/insights.md). */
export async function metricsExplorer(app: FastifyInstance): Promise<void> {
  for (const route of [
    getMetricTotals,
    listMetricModule,
    listMetricsExplorerPresets,
    createMetricsExplorerPreset,
    updateMetricsExplorerPreset,
    deleteMetricsExplorerPreset,
  ])
    app.route(route);
}
