import { purgeOldWebhookEvents } from '../modules/events/events-retention.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Deletes webhook events past WEBHOOK_EVENT_RETENTION_DAYS, with their ended deliveries (decision 0161). */
export const purgeWebhookEvents = defineJob({
  name: 'purge-webhook-events',
  payload: JOB_PAYLOADS['purge-webhook-events'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const purged = await purgeOldWebhookEvents(deps, new Date());
    if (purged.events > 0 || purged.deliveries > 0) log.info(purged, 'purged webhook events');
  },
});
