import type { FastifyInstance } from 'fastify';
import { createAccountUpdaterJob } from './routes/create-account-updater-job.ts';

export async function accountUpdater(app: FastifyInstance): Promise<void> {
  app.route(createAccountUpdaterJob);
}
