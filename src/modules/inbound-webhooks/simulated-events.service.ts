import type { Static } from 'typebox';
import type { Deps } from '../../context.ts';
import type { JOB_PAYLOADS } from '../../jobs/payloads.ts';
import { simulatedEventOf } from '../transactions/simulations/simulated-events.ts';
import { receiveSimulatedEvent } from './inbound-webhooks.service.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * The `deliver-simulated-event` job: the event a sandbox simulator's provider reports about a
 * payment that waited (transactions/simulations/simulated-events.ts), received as that provider's
 * webhook would be: deduplicated by its id, applied through the state machine with its transaction
 * events and webhooks. Idempotent: a second run finds the event recorded. Nothing happens for a
 * transaction gone, or a payment service no longer a simulator (production withholds them).
 */
export async function deliverSimulatedEvent(
  deps: Deps,
  log: Log,
  payload: Static<(typeof JOB_PAYLOADS)['deliver-simulated-event']>,
): Promise<void> {
  const found = await simulatedEventOf(deps, payload);
  if (!found) return;
  await receiveSimulatedEvent(
    deps,
    log,
    {
      merchantAccountId: payload.merchant_account_id,
      paymentServiceId: found.paymentServiceId,
      canVoid: found.canVoid,
    },
    found.event,
    found.overCapture,
  );
}
