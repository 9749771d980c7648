import type { FastifyInstance } from 'fastify';
import { createMonitoringMetric } from './routes/create-monitoring-metric.ts';
import { deleteMonitoringMetric } from './routes/delete-monitoring-metric.ts';
import { getMonitoringIncident } from './routes/get-monitoring-incident.ts';
import { getMonitoringMetric } from './routes/get-monitoring-metric.ts';
import { listMonitoringIncidents } from './routes/list-monitoring-incidents.ts';
import { listMonitoringMetricIncidents } from './routes/list-monitoring-metric-incidents.ts';
import { listMonitoringMetrics } from './routes/list-monitoring-metrics.ts';
import { updateMonitoringIncident } from './routes/update-monitoring-incident.ts';
import { updateMonitoringMetric } from './routes/update-monitoring-metric.ts';

const ROUTES = [
  createMonitoringMetric,
  listMonitoringMetrics,
  getMonitoringMetric,
  updateMonitoringMetric,
  deleteMonitoringMetric,
  listMonitoringMetricIncidents,
  listMonitoringIncidents,
  getMonitoringIncident,
  updateMonitoringIncident,
];

/** Monitoring and alerting: authorization rate metrics, their samples and incidents (docs/insights.md). */
export async function monitoring(app: FastifyInstance): Promise<void> {
  for (const route of ROUTES) app.route(route);
}
