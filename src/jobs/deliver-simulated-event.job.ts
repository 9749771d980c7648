import { deliverSimulatedEvent } from '../modules/inbound-webhooks/simulated-events.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Sandbox: one event a simulator's provider reports later (a direct debit collection confirmed or
 * failed, a chargeback, a PIX code paid or expired), applied as that provider's webhook,
 * SANDBOX_ASYNC_DELAY_SECONDS (times the event's step) after the payment started waiting.
 */
export const deliverSimulatedEventJob = defineJob({
  name: 'deliver-simulated-event',
  payload: JOB_PAYLOADS['deliver-simulated-event'],
  maxAttempts: 5,
  async handle(payload, job) {
    await deliverSimulatedEvent(job.deps, job.log, payload);
  },
});
