import type { FastifyInstance } from 'fastify';
import { createThreeDsConfiguration } from './routes/create-three-ds-configuration.ts';
import { deleteThreeDsConfiguration } from './routes/delete-three-ds-configuration.ts';
import { editThreeDsConfiguration } from './routes/edit-three-ds-configuration.ts';
import { listThreeDsConfigurations } from './routes/list-three-ds-configurations.ts';

export const threeDsConfigurationRoutes = [
  createThreeDsConfiguration,
  listThreeDsConfigurations,
  editThreeDsConfiguration,
  deleteThreeDsConfiguration,
];

export async function threeDsConfigurations(app: FastifyInstance): Promise<void> {
  for (const route of threeDsConfigurationRoutes) app.route(route);
}
