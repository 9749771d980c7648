import type { JobDefinition } from './job.ts';
import type { RecurringJob } from './queue.ts';
import { purgeExpiredCheckoutSessions } from './purge-expired-checkout-sessions.job.ts';
import { purgeFinishedJobs } from './purge-finished-jobs.job.ts';
import { purgeIdempotencyKeys } from './purge-idempotency-keys.job.ts';
import { purgeRateLimitWindows } from './purge-rate-limit-windows.job.ts';
import { purgeSecurityCodes } from './purge-security-codes.job.ts';
import { runAccountUpdater } from './run-account-updater.job.ts';
import { reconcileAttempts } from './reconcile-attempts.job.ts';
import { settleTransactionJob } from './settle-transaction.job.ts';
import { deliverWebhook } from './deliver-webhook.job.ts';

/** Every job the workers know. Add a new job here (see jobs/README.md). */
export const JOBS: JobDefinition[] = [purgeIdempotencyKeys, purgeFinishedJobs, purgeRateLimitWindows, purgeSecurityCodes, purgeExpiredCheckoutSessions, runAccountUpdater, settleTransactionJob, reconcileAttempts, deliverWebhook];

const HOUR = 3600 * 1000;

/** Jobs enqueued on a schedule, once per period across all processes. */
export const RECURRING: RecurringJob[] = [
  { job: purgeIdempotencyKeys, everyMs: HOUR },
  { job: purgeFinishedJobs, everyMs: 24 * HOUR },
  { job: purgeRateLimitWindows, everyMs: HOUR },
  // Security codes expire within the hour; the purge runs often so none lingers long past it.
  { job: purgeSecurityCodes, everyMs: 5 * 60 * 1000 },
  // Sessions live an hour by default: their card data goes within five minutes of expiry.
  { job: purgeExpiredCheckoutSessions, everyMs: 5 * 60 * 1000 },
  // Open connector attempts come due 5 minutes after their call at the earliest.
  { job: reconcileAttempts, everyMs: 60 * 1000 },
];
