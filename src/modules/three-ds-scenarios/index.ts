import type { FastifyInstance } from 'fastify';
import { createThreeDsScenario } from './routes/create-three-ds-scenario.ts';
import { deleteThreeDsScenario } from './routes/delete-three-ds-scenario.ts';
import { listThreeDsScenarios } from './routes/list-three-ds-scenarios.ts';
import { updateThreeDsScenario } from './routes/update-three-ds-scenario.ts';
import { assertSandbox } from './three-ds-scenarios.service.ts';

export const threeDsScenarioRoutes = [
  createThreeDsScenario,
  listThreeDsScenarios,
  updateThreeDsScenario,
  deleteThreeDsScenario,
];

/** Simulated 3DS outcomes of the sandbox. */
export async function threeDsScenarios(app: FastifyInstance): Promise<void> {
  // After authentication (a root hook), before validation and idempotency: in production every
  // operation is 403 whatever its body, so no request shape is worth probing there.
  app.addHook('onRequest', async (request) => assertSandbox(request.ctx.deps));
  for (const route of threeDsScenarioRoutes) app.route(route);
}
