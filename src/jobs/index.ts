import type { JobDefinition } from './job.ts';
import type { RecurringJob } from './queue.ts';
import { purgeExpiredCheckoutSessions } from './purge-expired-checkout-sessions.job.ts';
import { purgeFinishedJobs } from './purge-finished-jobs.job.ts';
import { purgeIdempotencyKeys } from './purge-idempotency-keys.job.ts';
import { purgeRateLimitWindows } from './purge-rate-limit-windows.job.ts';
import { purgeRoutingStats } from './purge-routing-stats.job.ts';
import { purgeSecurityCodes } from './purge-security-codes.job.ts';
import { purgeVelocityCounts } from './purge-velocity-counts.job.ts';
import { runAccountUpdater } from './run-account-updater.job.ts';
import { reconcileAttempts } from './reconcile-attempts.job.ts';
import { reconcilePayouts } from './reconcile-payouts.job.ts';
import { settleTransactionJob } from './settle-transaction.job.ts';
import { deliverSimulatedEventJob } from './deliver-simulated-event.job.ts';
import { deliverWebhook } from './deliver-webhook.job.ts';
import { closeCardTestingIncident } from './close-card-testing-incident.job.ts';
import { expireThreeDsChallengesJob } from './expire-three-ds-challenges.job.ts';
import { voidLateAuthorization } from './void-late-authorization.job.ts';
import { refundLateCapture } from './refund-late-capture.job.ts';
import { reconcilePaymentServiceTokens } from './reconcile-payment-service-tokens.job.ts';
import { anchorAuditChains } from './anchor-audit-chains.job.ts';
import { analyzeEmbeddedDatabase } from './analyze-embedded-database.job.ts';
import { vacuumEmbeddedDatabase } from './vacuum-embedded-database.job.ts';
import { evaluateMonitoringMetrics } from './evaluate-monitoring-metrics.job.ts';
import { purgeMonitoringHistory } from './purge-monitoring-history.job.ts';
import { expirePaymentLinksJob } from './expire-payment-links.job.ts';
import { generateReport } from './generate-report.job.ts';
import { scheduleReports } from './schedule-reports.job.ts';
import { purgeReportExecutions } from './purge-report-executions.job.ts';
import { purgeWalletTokenUses } from './purge-wallet-token-uses.job.ts';
import { purgeDashboardSessions } from './purge-dashboard-sessions.job.ts';
import { purgeInboundWebhookEvents } from './purge-inbound-webhook-events.job.ts';
import { purgeWebhookEvents } from './purge-webhook-events.job.ts';
import { sealMerchantAccountSecrets } from './seal-merchant-account-secrets.job.ts';
import { rekeyIdempotencyKeys } from './rekey-idempotency-keys.job.ts';
import { ingestSettlementsJob } from './ingest-settlements.job.ts';
import { scheduleSettlementIngestions } from './schedule-settlement-ingestions.job.ts';
import { reconcileGiftCardsJob } from './reconcile-gift-cards.job.ts';
import { reverseGiftCardRedemptionJob } from './reverse-gift-card-redemption.job.ts';
import { sendAntiFraudUpdateJob } from './send-anti-fraud-update.job.ts';

/** Every job the workers know. Add a new job here (see jobs/README.md). */
export const JOBS: JobDefinition[] = [
  purgeIdempotencyKeys,
  purgeFinishedJobs,
  purgeRateLimitWindows,
  purgeRoutingStats,
  purgeVelocityCounts,
  closeCardTestingIncident,
  purgeSecurityCodes,
  purgeExpiredCheckoutSessions,
  runAccountUpdater,
  settleTransactionJob,
  deliverSimulatedEventJob,
  reconcileAttempts,
  reconcilePayouts,
  deliverWebhook,
  voidLateAuthorization,
  refundLateCapture,
  reconcilePaymentServiceTokens,
  expireThreeDsChallengesJob,
  analyzeEmbeddedDatabase,
  vacuumEmbeddedDatabase,
  evaluateMonitoringMetrics,
  purgeMonitoringHistory,
  expirePaymentLinksJob,
  generateReport,
  scheduleReports,
  purgeReportExecutions,
  purgeWalletTokenUses,
  rekeyIdempotencyKeys,
  purgeInboundWebhookEvents,
  purgeWebhookEvents,
  sealMerchantAccountSecrets,
  reconcileGiftCardsJob,
  reverseGiftCardRedemptionJob,
  sendAntiFraudUpdateJob,
  ingestSettlementsJob,
  scheduleSettlementIngestions,
  purgeDashboardSessions,
  anchorAuditChains,
];

const HOUR = 3600 * 1000;

/** Jobs enqueued on a schedule, once per period across all processes. */
export const RECURRING: RecurringJob[] = [
  { job: purgeIdempotencyKeys, everyMs: HOUR },
  { job: purgeFinishedJobs, everyMs: 24 * HOUR },
  { job: purgeRateLimitWindows, everyMs: HOUR },
  // Success-rate buckets are read for 24 h at most: an hourly purge keeps an hour more.
  { job: purgeRoutingStats, everyMs: HOUR },
  // Velocity buckets likewise: read for 24 h at most.
  { job: purgeVelocityCounts, everyMs: HOUR },
  // Security codes expire within the hour; the purge runs often so none lingers long past it.
  { job: purgeSecurityCodes, everyMs: 5 * 60 * 1000 },
  // Sessions live an hour by default: their card data goes within five minutes of expiry.
  { job: purgeExpiredCheckoutSessions, everyMs: 5 * 60 * 1000 },
  // Open connector attempts come due 5 minutes after their call at the earliest.
  { job: reconcileAttempts, everyMs: 60 * 1000 },
  // Open payout attempts come due like transaction attempts: 5 minutes after their call at the earliest.
  { job: reconcilePayouts, everyMs: 60 * 1000 },
  // Gift card records a crash left open come due 5 minutes after they were recorded.
  { job: reconcileGiftCardsJob, everyMs: 60 * 1000 },
  // A challenge times out like a redirect approval (BUYER_APPROVAL_TIMEOUT_SECONDS); a minute late at most.
  { job: expireThreeDsChallengesJob, everyMs: 60 * 1000 },
  // Tokens left `processing` come due 5 minutes after their call at the earliest, like attempts.
  { job: reconcilePaymentServiceTokens, everyMs: 60 * 1000 },
  // Embedded PGlite has no autovacuum: statistics follow growth within 10 s, dead rows go hourly.
  // Within 10 s: a named statement's plan chosen while its table was small (a sequential scan) stays
  // until the next ANALYZE, and a table under load grows a hundredfold in a minute (decision 0147).
  // The first also runs on a PostgreSQL server whose autovacuum is off (its statistics only).
  { job: analyzeEmbeddedDatabase, everyMs: 10 * 1000 },
  { job: vacuumEmbeddedDatabase, everyMs: HOUR },
  // Monitoring samples are per minute.
  { job: evaluateMonitoringMetrics, everyMs: 60 * 1000 },
  { job: purgeMonitoringHistory, everyMs: HOUR },
  // Links expire on read too; the job records the expiry (and its webhook) within a minute without one.
  { job: expirePaymentLinksJob, everyMs: 60 * 1000 },
  // Reports come due at midnight in their time zone: their executions start within a minute.
  { job: scheduleReports, everyMs: 60 * 1000 },
  { job: purgeReportExecutions, everyMs: HOUR },
  // Wallet token uses outlive their tokens by an hour already: an hourly purge keeps the table small.
  { job: purgeWalletTokenUses, everyMs: HOUR },
  // Ended dashboard sessions open nothing (they are checked on every request): hourly keeps the table small.
  { job: purgeDashboardSessions, everyMs: HOUR },
  // Provider webhook events outlive the providers' retries (INBOUND_WEBHOOK_RETENTION_DAYS): hourly is plenty.
  { job: purgeInboundWebhookEvents, everyMs: HOUR },
  // Events sent to subscriptions, with their deliveries, go WEBHOOK_EVENT_RETENTION_DAYS after they were made.
  { job: purgeWebhookEvents, everyMs: HOUR },
  // Secrets kept in clear are sealed within 5 minutes of an upgrade (a worker's first poll schedules
  // the period's run), and so are those processes of the previous version write during a rolling deploy.
  { job: sealMerchantAccountSecrets, everyMs: 5 * 60 * 1000 },
  // Keys stored before migration 0038 are keyed when a worker starts (a new period) and, should a
  // process of the previous version still store some during a rolling upgrade, within 10 minutes.
  { job: rekeyIdempotencyKeys, everyMs: 10 * 60 * 1000 },
  // Each payment service's settlement ingestion is keyed by its UTC day: an hourly look enqueues
  // the day's run within an hour of midnight (or of a worker's start), and no second one that day.
  { job: scheduleSettlementIngestions, everyMs: HOUR },
  // The audit chains' heads leave the database once a day (decision 0141): a rewrite of entries
  // older than the last anchor is found by svc audit verify.
  { job: anchorAuditChains, everyMs: 24 * HOUR },
];
