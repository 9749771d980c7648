import type { FastifyInstance } from 'fastify';
import { auditLogs } from './audit-logs/index.ts';
import { health } from './health/index.ts';
import { merchantAccounts } from './merchant-accounts/index.ts';

/** Every resource group, registered by `buildApp` in this order. */
export const MODULES: Array<(app: FastifyInstance) => Promise<void>> = [health, merchantAccounts, auditLogs];
