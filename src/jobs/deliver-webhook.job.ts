import { attemptDelivery, LEASE_MS } from '../modules/events/deliveries.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * One delivery attempt of one event to one subscription (docs/webhooks.md). The delivery keeps its
 * own schedule (next_attempt_at, give_up_at): a failed attempt is recorded and the next job is
 * enqueued with it, so this job itself succeeds. The queue's own retries only cover a worker that
 * died during the attempt, or an attempt sent whose outcome could not be recorded; the delivery's
 * lease makes a second run a no-op meanwhile, so a retry waits for the lease to run out and then
 * attempts the delivery again (at least once).
 */
export const deliverWebhook = defineJob({
  name: 'deliver-webhook',
  payload: JOB_PAYLOADS['deliver-webhook'],
  maxAttempts: 5,
  // Waits on the receiver with no connection held: slots of its own (decision 0153).
  network: true,
  // After the delivery's lease (60 s): sooner, the retry would find the delivery leased and do nothing.
  backoffMs: (attempt) => LEASE_MS + 1000 * 2 ** attempt,
  async handle(payload, job) {
    await attemptDelivery(job.deps, payload.merchant_account_id, payload.delivery_id, new Date());
  },
});
