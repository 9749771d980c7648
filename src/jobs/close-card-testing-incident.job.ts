import { closeRaisedIncident } from '../modules/monitoring/incidents.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Closes a card-testing throttle's incident when its cool-down ends (docs/risk.md, "Card-testing guard"). */
export const closeCardTestingIncident = defineJob({
  name: 'close-card-testing-incident',
  payload: JOB_PAYLOADS['close-card-testing-incident'],
  maxAttempts: 10,
  async handle(payload, { deps }) {
    await closeRaisedIncident(deps, payload.merchant_account_id, payload.incident_id, new Date());
  },
});
