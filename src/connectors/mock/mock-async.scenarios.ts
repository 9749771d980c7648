import type { SimulatedEvent, SimulationRequest } from '../connector-simulations.ts';
import type { InboundWebhookActionKind } from '../connector-webhooks.ts';
import { AMOUNT_SCENARIOS } from './mock-card.scenarios.ts';

/**
 * The later outcomes of the sandbox's asynchronous methods (direct debit: `mock-gocardless`,
 * `mock-sepa`; PIX: `mock-pix`), by the payment's amount (minor units). The amounts follow the card
 * table's numbering (docs/sandbox.md, "Transaction outcomes"): `2051` is insufficient funds there
 * too, only a direct debit learns it when the bank collects, not when the buyer approves; `2054`
 * ends like an expired card (raw 54); `2259` is disputed like the dispute card `…0259`. docs/sandbox.md
 * "Asynchronous methods" lists the same table; a test keeps the two in step.
 */
export const ASYNC_AMOUNTS = {
  /** Direct debit: the mandate is approved, then the collection fails (insufficient funds). */
  collectionFails: 2051,
  /** Direct debit: collected, then the payer's bank charges it back. */
  chargedBack: 2259,
  /** PIX: the buyer never pays the code; it expires. */
  pixExpires: 2054,
} as const;

/** The raw codes each simulated provider reports, as the real one does (GoCardless's causes, SEPA's R-transaction reasons, dLocal's statuses). */
const RAW: Readonly<Record<string, { failed: [string, string]; chargeback: [string, string] }>> = {
  gocardless: {
    failed: ['insufficient_funds', "The payer's account had insufficient funds"],
    chargeback: ['refer_to_payer', 'The payer asked their bank to return the payment'],
  },
  sepa: {
    failed: ['AM04', 'Insufficient funds'],
    chargeback: ['MD06', 'Refund request by end customer'],
  },
};

function simulated(
  request: SimulationRequest,
  prefix: string,
  after: number,
  kind: InboundWebhookActionKind,
  raw: [string, string] | null,
): SimulatedEvent {
  const reference = request.captureId ?? `${request.providerTransactionId}_collection`;
  return {
    after,
    event: {
      eventId: `${prefix}_evt_${request.providerTransactionId}_${request.captureId ?? 'payment'}_${kind}`,
      actions: [
        {
          kind,
          providerTransactionId: request.providerTransactionId,
          providerReferenceId: kind === 'authorization_failed' ? null : reference,
          amount: request.amount,
          currency: request.currency,
          rawResponseCode: raw?.[0] ?? null,
          rawResponseDescription: raw?.[1] ?? null,
        },
      ],
    },
  };
}

/** A direct debit's collection: confirmed one delay later (or failed), and a chargeback a delay after that. */
export function collectionEvents(request: SimulationRequest, prefix: string): SimulatedEvent[] {
  if (request.status !== 'capture_pending') return [];
  const raw = RAW[request.payment.method] ?? RAW.sepa!;
  const amount = request.payment.authorizedAmount;
  if (amount === ASYNC_AMOUNTS.collectionFails) return [simulated(request, prefix, 1, 'capture_failed', raw.failed)];
  const confirmed = simulated(request, prefix, 1, 'capture_succeeded', null);
  return amount === ASYNC_AMOUNTS.chargedBack
    ? [confirmed, simulated(request, prefix, 2, 'chargeback_opened', raw.chargeback)]
    : [confirmed];
}

/** A PIX code: paid by the buyer one delay later, or expired then. */
export function pixEvents(request: SimulationRequest, prefix: string): SimulatedEvent[] {
  if (request.status !== 'buyer_approval_pending') return [];
  // The card table's declines: dLocal rejects the payment when the buyer's bank answers.
  const forced = AMOUNT_SCENARIOS.get(request.payment.authorizedAmount)?.scenario;
  if (forced?.kind === 'decline')
    return [simulated(request, prefix, 1, 'authorization_failed', [forced.rawCode, forced.rawDescription])];
  return request.payment.authorizedAmount === ASYNC_AMOUNTS.pixExpires
    ? [simulated(request, prefix, 1, 'authorization_failed', ['EXPIRED', 'The PIX code expired unpaid'])]
    : [simulated(request, prefix, 1, 'capture_succeeded', ['PAID', 'The buyer paid the PIX code'])];
}
