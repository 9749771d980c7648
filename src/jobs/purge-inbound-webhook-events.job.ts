import { purgeOldInboundEvents } from '../modules/inbound-webhooks/inbound-webhooks.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Deletes provider webhook events past INBOUND_WEBHOOK_RETENTION_DAYS (their deduplication rows). */
export const purgeInboundWebhookEvents = defineJob({
  name: 'purge-inbound-webhook-events',
  payload: JOB_PAYLOADS['purge-inbound-webhook-events'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const purged = await purgeOldInboundEvents(deps, new Date());
    if (purged > 0) log.info({ purged }, 'purged inbound webhook events');
  },
});
