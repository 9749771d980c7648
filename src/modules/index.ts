import type { FastifyInstance } from 'fastify';
import { apiKeyPairs } from './api-key-pairs/index.ts';
import { auditLogs } from './audit-logs/index.ts';
import { buyers } from './buyers/index.ts';
import { cardDetails } from './card-details/index.ts';
import { cardSchemeDefinitions } from './card-scheme-definitions/index.ts';
import { health } from './health/index.ts';
import { merchantAccounts } from './merchant-accounts/index.ts';
import { paymentMethods } from './payment-methods/index.ts';
import { threeDsConfigurations } from './three-ds-configurations/index.ts';

/** Every resource group, registered by `buildApp` in this order. */
export const MODULES: Array<(app: FastifyInstance) => Promise<void>> = [health, merchantAccounts, threeDsConfigurations, auditLogs, apiKeyPairs, buyers, cardSchemeDefinitions, cardDetails, paymentMethods];
