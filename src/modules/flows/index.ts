import type { FastifyInstance } from 'fastify';
import { createFlowRule } from './routes/create-flow-rule.ts';
import { deleteFlowRule } from './routes/delete-flow-rule.ts';
import { dryRunFlow } from './routes/dry-run-flow.ts';
import { getFlowRule } from './routes/get-flow-rule.ts';
import { listFlowRules } from './routes/list-flow-rules.ts';
import { reorderFlowRules } from './routes/reorder-flow-rules.ts';
import { updateFlowRule } from './routes/update-flow-rule.ts';

export const flowRoutes = [
  createFlowRule,
  listFlowRules,
  getFlowRule,
  updateFlowRule,
  deleteFlowRule,
  reorderFlowRules,
  dryRunFlow,
];

/** Flow rules: routing, failover, early declines, 3DS skips and payment option selection (docs/routing.md). */
export async function flows(app: FastifyInstance): Promise<void> {
  for (const route of flowRoutes) app.route(route);
}
