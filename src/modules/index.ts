import type { FastifyInstance } from 'fastify';
import { accountUpdater } from './account-updater/index.ts';
import { apiKeyPairs } from './api-key-pairs/index.ts';
import { auditLogs } from './audit-logs/index.ts';
import { antiFraudServices } from './anti-fraud-services/index.ts';
import { blocklistEntries } from './blocklist-entries/index.ts';
import { buyers } from './buyers/index.ts';
import { cardDetails } from './card-details/index.ts';
import { checkoutSessions } from './checkout-sessions/index.ts';
import { cardSchemeDefinitions } from './card-scheme-definitions/index.ts';
import { paymentMethodDefinitions } from './payment-method-definitions/index.ts';
import { giftCards } from './gift-cards/index.ts';
import { health } from './health/index.ts';
import { merchantAccounts } from './merchant-accounts/index.ts';
import { metrics } from './metrics/index.ts';
import { networkTokens } from './network-tokens/index.ts';
import { paymentMethods } from './payment-methods/index.ts';
import { paymentOptions } from './payment-options/index.ts';
import { paymentServiceDefinitions } from './payment-service-definitions/index.ts';
import { paymentServices } from './payment-services/index.ts';
import { paymentServiceTokens } from './payment-service-tokens/index.ts';
import { payouts } from './payouts/index.ts';
import { paymentLinks } from './payment-links/index.ts';
import { reports } from './reports/index.ts';
import { transactions } from './transactions/index.ts';
import { flows } from './flows/index.ts';
import { vaultForward } from './vault-forward/index.ts';
import { sandboxApprovals } from './sandbox-approvals/index.ts';
import { sandboxEcho } from './sandbox-echo/index.ts';
import { connectorReturns } from './connector-returns/index.ts';
import { threeDsConfigurations } from './three-ds-configurations/index.ts';
import { threeDsScenarios } from './three-ds-scenarios/index.ts';
import { webhookSubscriptions } from './webhook-subscriptions/index.ts';
import { webhookDeliveries } from './webhook-deliveries/index.ts';
import { digitalWallets } from './digital-wallets/index.ts';
import { metricsExplorer } from './metrics-explorer/index.ts';
import { monitoring } from './monitoring/index.ts';
import { inboundWebhooks } from './inbound-webhooks/index.ts';
import { roles } from './roles/index.ts';
import { dashboardSessions } from './dashboard-sessions/index.ts';
import { users } from './dashboard-users/index.ts';
import { dashboardSso } from './dashboard-sso/index.ts';

/** Every resource group, registered by `buildApp` in this order. */
export const MODULES: Array<(app: FastifyInstance) => Promise<void>> = [
  health,
  merchantAccounts,
  threeDsConfigurations,
  auditLogs,
  apiKeyPairs,
  buyers,
  cardSchemeDefinitions,
  paymentMethodDefinitions,
  cardDetails,
  paymentMethods,
  networkTokens,
  checkoutSessions,
  accountUpdater,
  paymentServiceDefinitions,
  paymentServices,
  paymentServiceTokens,
  paymentOptions,
  flows,
  giftCards,
  threeDsScenarios,
  blocklistEntries,
  antiFraudServices,
  transactions,
  payouts,
  sandboxApprovals,
  sandboxEcho,
  webhookSubscriptions,
  webhookDeliveries,
  vaultForward,
  metricsExplorer,
  monitoring,
  inboundWebhooks,
  metrics,
  paymentLinks,
  digitalWallets,
  reports,
  connectorReturns,
  roles,
  dashboardSessions,
  users,
  dashboardSso,
];
