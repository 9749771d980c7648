import type { Updateable } from 'kysely';
import type { AuthorizeOutcome, CaptureOutcome, RefundOutcome, VoidOutcome } from '../../connectors/connector.ts';
import type { AttemptStatus, TransactionRow, TransactionsTable } from '../../db/schema-transactions.ts';
import { intentOutcome, nextStatus, TransitionError } from './transaction-status.ts';

/**
 * Pure: what a connector's answer does to a transaction row. Every status goes through the state
 * machine; amounts move between "reserved" (a call in flight) and "done" so that the database
 * checks (captured + reserved ≤ limit, refunded + reserved ≤ captured) hold at every step.
 */

export type Patch = Updateable<TransactionsTable>;

export interface Applied {
  patch: Patch;
  attemptStatus: AttemptStatus;
  /** Name of the transaction event that records the connector's answer. */
  eventName: string;
}

/** When reconciliation looks at an open attempt again: after 5 minutes, 1 hour, then daily. */
export function nextCheckAt(checks: number, now: Date): Date {
  const delaysMs = [5 * 60_000, 60 * 60_000];
  return new Date(now.getTime() + (delaysMs[checks] ?? 24 * 60 * 60_000));
}

function facts(outcome: {
  errorCode: string | null;
  rawResponseCode: string | null;
  rawResponseDescription: string | null;
}): Patch {
  return {
    error_code: outcome.errorCode,
    raw_response_code: outcome.rawResponseCode,
    raw_response_description: outcome.rawResponseDescription,
  };
}

function withStatus(row: TransactionRow, status: TransactionRow['status'], patch: Patch): Patch {
  const to = nextStatus(row.status, status);
  return { ...patch, status: to, intent_outcome: intentOutcome(row.intent, to) };
}

/**
 * The authorization's answer. `allowance`: the over-capture allowance for this authorization.
 * Throws TransitionError once the authorization is no longer open (canceled meanwhile, or
 * answered already): a late answer, even one of the same status, must not overwrite what the
 * transaction says (a cancel's `canceled` code).
 */
export function applyAuthorization(
  row: TransactionRow,
  outcome: AuthorizeOutcome,
  now: Date,
  allowance: number,
): Applied {
  if (row.status !== 'processing' && row.status !== 'buyer_approval_pending')
    throw new TransitionError(row.status, row.status);
  const common: Patch = {
    ...facts(outcome),
    payment_service_transaction_id: outcome.providerTransactionId,
    auth_response_code: outcome.authResponseCode,
    avs_response_code: outcome.avsResponseCode,
    cvv_response_code: outcome.cvvResponseCode,
    scheme_transaction_id: outcome.schemeTransactionId,
    merchant_advice_code: outcome.merchantAdviceCode,
    additional_identifiers: JSON.stringify(outcome.additionalIdentifiers),
  };
  // Gift cards (multi-tender) fund part of the amount; the payment method is authorized for the rest.
  const authorized = row.amount - row.gift_card_amount;
  switch (outcome.status) {
    case 'authorized':
      return {
        attemptStatus: 'succeeded',
        eventName: 'payment-connector-response-transaction-authorization-succeeded',
        patch: withStatus(row, 'authorization_succeeded', {
          ...common,
          authorized_amount: authorized,
          capture_limit: authorized + allowance,
          authorized_at: now,
        }),
      };
    case 'captured':
      return {
        attemptStatus: 'succeeded',
        eventName: 'payment-connector-response-transaction-capture-succeeded',
        patch: withStatus(row, 'capture_succeeded', {
          ...common,
          authorized_amount: authorized,
          capture_limit: authorized,
          captured_amount: authorized,
          capture_closed: true,
          authorized_at: now,
          captured_at: now,
        }),
      };
    case 'capture_pending':
      return {
        attemptStatus: 'pending',
        eventName: 'payment-connector-response-transaction-authorization-succeeded',
        patch: withStatus(row, 'capture_pending', {
          ...common,
          authorized_amount: authorized,
          capture_limit: authorized,
          capture_reserved: authorized,
          capture_closed: true,
          authorized_at: now,
        }),
      };
    case 'buyer_approval_pending':
      return {
        attemptStatus: 'pending',
        eventName: 'payment-connector-response-transaction-authorization-succeeded',
        patch: withStatus(row, 'buyer_approval_pending', { ...common, approval_url: outcome.approvalUrl }),
      };
    case 'declined':
      return {
        attemptStatus: 'declined',
        eventName: 'payment-connector-response-transaction-declined',
        patch: withStatus(row, 'authorization_declined', common),
      };
    case 'failed':
      return {
        attemptStatus: 'failed',
        eventName: 'payment-connector-response-transaction-authorization-failed',
        patch: withStatus(row, 'authorization_failed', common),
      };
  }
}

/** A capture's answer; `amount` was reserved when the capture started. */
export function applyCapture(
  row: TransactionRow,
  outcome: Pick<CaptureOutcome, 'status' | 'errorCode' | 'rawResponseCode' | 'rawResponseDescription'>,
  attempt: { amount: number; final: boolean },
  now: Date,
): Applied {
  const released = { capture_reserved: row.capture_reserved - attempt.amount };
  switch (outcome.status) {
    case 'succeeded':
      return {
        attemptStatus: 'succeeded',
        eventName: 'payment-connector-response-transaction-capture-succeeded',
        patch: withStatus(row, 'capture_succeeded', {
          ...released,
          captured_amount: row.captured_amount + attempt.amount,
          captured_at: now,
        }),
      };
    case 'pending':
      // The amount stays reserved until the provider confirms the capture.
      return {
        attemptStatus: 'pending',
        eventName: 'payment-connector-response-transaction-capture-succeeded',
        patch: withStatus(row, 'capture_pending', {}),
      };
    case 'declined':
    case 'failed':
      return {
        attemptStatus: outcome.status,
        eventName:
          outcome.status === 'declined'
            ? 'payment-connector-response-transaction-capture-declined'
            : 'payment-connector-response-transaction-capture-failed',
        // A refused final capture reopens the authorization, unless something was captured before.
        patch: withStatus(row, row.captured_amount > 0 ? 'capture_succeeded' : 'authorization_succeeded', {
          ...released,
          ...(attempt.final ? { capture_closed: row.captured_amount > 0 && row.capture_closed } : {}),
        }),
      };
  }
}

/** A void's answer; the void closed capturing when it started. */
export function applyVoid(row: TransactionRow, outcome: Pick<VoidOutcome, 'status'>, now: Date): Applied {
  switch (outcome.status) {
    case 'succeeded':
      return {
        attemptStatus: 'succeeded',
        eventName: 'payment-connector-response-transaction-void-succeeded',
        patch: withStatus(row, 'authorization_voided', { voided_at: now }),
      };
    case 'pending':
      return {
        attemptStatus: 'pending',
        eventName: 'payment-connector-response-transaction-void-succeeded',
        patch: withStatus(row, 'authorization_void_pending', {}),
      };
    case 'declined':
    case 'failed':
      return {
        attemptStatus: outcome.status,
        eventName:
          outcome.status === 'declined'
            ? 'payment-connector-response-transaction-void-declined'
            : 'payment-connector-response-transaction-void-failed',
        patch: withStatus(row, 'authorization_succeeded', { capture_closed: false }),
      };
  }
}

/** A refund's answer; `amount` was reserved when the refund started. */
export function applyRefund(
  row: TransactionRow,
  outcome: Pick<RefundOutcome, 'status'>,
  amount: number,
): { patch: Patch; attemptStatus: AttemptStatus; refundStatus: 'succeeded' | 'processing' | 'declined' | 'failed' } {
  switch (outcome.status) {
    case 'succeeded':
      return {
        attemptStatus: 'succeeded',
        refundStatus: 'succeeded',
        patch: { refund_reserved: row.refund_reserved - amount, refunded_amount: row.refunded_amount + amount },
      };
    case 'processing':
      return { attemptStatus: 'pending', refundStatus: 'processing', patch: {} };
    case 'declined':
    case 'failed':
      return {
        attemptStatus: outcome.status,
        refundStatus: outcome.status,
        patch: { refund_reserved: row.refund_reserved - amount },
      };
  }
}

/** Gift cards paid the whole amount (no payment method): the transaction is complete. */
export function applyGiftCardsOnly(row: TransactionRow, now: Date): Applied {
  return {
    attemptStatus: 'succeeded',
    eventName: 'gift-card-redemption-succeeded',
    patch: withStatus(row, 'capture_succeeded', { captured_at: now }),
  };
}
