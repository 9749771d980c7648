import type { InboundWebhookEvent } from './connector-webhooks.ts';

/**
 * The asynchronous outcomes of the sandbox's simulated providers (direct debit collections, PIX
 * payments): what the simulated provider would report by webhook later, decided deterministically
 * by the payment. The engine schedules each as a job (`deliver-simulated-event`) and applies it,
 * when due, through the inbound webhook path a real provider's event takes, so its transaction
 * events and webhooks are those of a real one. Only built-in simulators have it (the registry
 * refuses it on any other connector, capability-check.ts), and production withholds them.
 */

/** A payment now waiting at the simulated provider. */
export interface SimulationRequest {
  /** What the payment waits for: its buyer (a PIX code to pay), or a collection (direct debit). */
  status: 'buyer_approval_pending' | 'capture_pending';
  /** The simulated provider's id of the payment. */
  providerTransactionId: string;
  /** The capture the collection is of (its attempt id), when a capture started it; null for the payment's own. */
  captureId: string | null;
  /** The amount waiting (the collection's, or the payment's). */
  amount: number;
  currency: string;
  /** The payment's facts, as a status query carries them (connector.ts `PaymentHint`, repeated here: that file imports this one). */
  payment: { method: string; bin: string | null; last4: string | null; authorizedAmount: number };
}

/** One event the simulated provider sends, `after` sandbox delays (`SANDBOX_ASYNC_DELAY_SECONDS`) from now. */
export interface SimulatedEvent {
  after: number;
  event: InboundWebhookEvent;
}

/** The optional connector member of the simulators: the events that follow a payment now waiting. */
export type SimulateEvents = (request: SimulationRequest) => SimulatedEvent[];
