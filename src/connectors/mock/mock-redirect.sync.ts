import type { ResponseFacts, SyncOutcome, SyncRequest } from '../connector.ts';
import { ASYNC_AMOUNTS } from './mock-async.scenarios.ts';
import { AMOUNT_SCENARIOS } from './mock-card.scenarios.ts';

/**
 * How a sandbox redirect method completes (docs/sandbox.md), mirroring its real connector:
 * - `approval`: the buyer approves on the sandbox page; authorized (captured with intent capture);
 *   captures, voids and refunds answer at once (pay-by-bank, PayPal, Klarna);
 * - `captured-at-once`: captured when the buyer approves, intent `capture` only, no capture or
 *   void, refunds (iDEAL, as adyen-ideal);
 * - `direct-debit`: the approval is the mandate (authorized); a collection (intent capture, or a
 *   capture) is `capture_pending` until the simulated provider reports it (GoCardless, SEPA);
 *   refunds are `processing` until a status query;
 * - `pix`: a sale paid with a code, not approved on a page: waiting until the simulated provider
 *   reports it paid or expired; refunds are `processing` until a status query.
 */
export type MockRedirectFlow = 'approval' | 'captured-at-once' | 'direct-debit' | 'pix';

/** The simulated provider's own record of the buyer's choice, when the buyer returns through `/connector-returns/...` with it. */
export const DECISION_PARAM = 'sandbox_decision';

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The buyer's choice: recorded by the engine (the sandbox page), or carried back on the return address. */
function decisionOf(request: SyncRequest): boolean | null {
  if (request.buyerApproved !== null) return request.buyerApproved;
  const given = request.returnParams?.[DECISION_PARAM];
  return given === 'approved' ? true : given === 'declined' ? false : null;
}

/** A decline of the card table's amounts once approved (a direct debit learns `2051` only when collecting). */
function forcedDecline(flow: MockRedirectFlow, amount: number): ResponseFacts | null {
  if (flow === 'direct-debit' && amount === ASYNC_AMOUNTS.collectionFails) return null;
  const forced = AMOUNT_SCENARIOS.get(amount)?.scenario;
  return forced?.kind === 'decline'
    ? { errorCode: forced.errorCode, rawResponseCode: forced.rawCode, rawResponseDescription: forced.rawDescription }
    : null;
}

/** What an approved payment is at the simulated provider. */
function approvedStatus(flow: MockRedirectFlow, intent: SyncRequest['intent']): SyncOutcome['status'] {
  if (flow === 'captured-at-once' || flow === 'pix') return 'captured';
  if (intent === 'authorize') return 'authorized';
  return flow === 'direct-debit' ? 'capture_pending' : 'captured';
}

/** The authorization's status, stateless: from the buyer's choice and the amount. */
function authorizationStatus(flow: MockRedirectFlow, request: SyncRequest, id: string): SyncOutcome {
  const decision = decisionOf(request);
  const amount = request.payment.authorizedAmount;
  if (flow === 'pix' && amount === ASYNC_AMOUNTS.pixExpires && decision !== null)
    return {
      errorCode: 'authorization_expired',
      rawResponseCode: 'EXPIRED',
      rawResponseDescription: 'The PIX code expired unpaid',
      status: 'declined',
      providerTransactionId: id,
    };
  if (decision === null) return { ...blank, status: 'buyer_approval_pending', providerTransactionId: id };
  if (!decision)
    return {
      errorCode: 'buyer_declined',
      rawResponseCode: 'REJECTED',
      rawResponseDescription: 'The buyer declined the payment',
      status: 'declined',
      providerTransactionId: id,
    };
  const decline = forcedDecline(flow, amount);
  if (decline) return { ...decline, status: 'declined', providerTransactionId: id };
  return { ...blank, status: approvedStatus(flow, request.intent), providerTransactionId: id };
}

/**
 * The simulated provider's answer to a status query. An authorization made without an answer
 * (`providerTransactionId` null: the `2408` timeout) never showed its buyer the page or code: it
 * is failed, as the real connectors cancel such a payment. A direct debit's capture is collected,
 * or not (`2051`); a refund is refunded.
 */
export function mockRedirectSync(flow: MockRedirectFlow, request: SyncRequest, id: string): SyncOutcome {
  if (request.operation === 'authorize' && request.providerTransactionId === null)
    return {
      errorCode: 'service_network_error',
      rawResponseCode: 'CANCELLED',
      rawResponseDescription: 'The answer with the approval page was lost: the payment was cancelled',
      status: 'failed',
      providerTransactionId: id,
    };
  switch (request.operation) {
    case 'authorize':
      return authorizationStatus(flow, request, id);
    case 'capture':
      if (flow === 'direct-debit' && request.payment.authorizedAmount === ASYNC_AMOUNTS.collectionFails)
        return {
          errorCode: 'capture_declined',
          rawResponseCode: 'failed',
          rawResponseDescription: 'The collection failed: insufficient funds',
          status: 'failed',
          providerTransactionId: request.providerTransactionId,
        };
      return { ...blank, status: 'captured', providerTransactionId: request.providerTransactionId ?? id };
    case 'void':
      return { ...blank, status: 'voided', providerTransactionId: id };
    case 'refund':
      return { ...blank, status: 'refunded', providerTransactionId: request.providerTransactionId ?? id };
    default:
      return { ...blank, status: 'not_found', providerTransactionId: null };
  }
}
