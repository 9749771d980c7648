import type { TransactionStatus } from '../../db/schema-transactions.ts';

/**
 * The transaction state machine: every status change goes through `nextStatus`, which refuses a
 * change the table does not allow. Pure, so it is unit-tested on its own (every allowed and every
 * forbidden pair).
 *
 *   processing ──► buyer_approval_pending ──► (any authorization outcome)
 *       │
 *       ├─► authorization_succeeded ──► capture_pending ──► capture_succeeded
 *       │         │  └──────────────────────────────────────►┘   (multi-capture: stays)
 *       │         └─► authorization_void_pending ──► authorization_voided
 *       ├─► authorization_declined | authorization_failed          (final)
 */
export const TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  processing: [
    'buyer_approval_pending',
    'authorization_succeeded',
    'authorization_declined',
    'authorization_failed',
    'capture_succeeded',
    'capture_pending',
  ],
  buyer_approval_pending: [
    'authorization_succeeded',
    'authorization_declined',
    'authorization_failed',
    'capture_succeeded',
    'capture_pending',
  ],
  authorization_succeeded: [
    'capture_succeeded',
    'capture_pending',
    'authorization_voided',
    'authorization_void_pending',
  ],
  // A pending capture that the provider then refuses leaves the authorization as it was.
  capture_pending: ['capture_succeeded', 'authorization_succeeded'],
  // Further partial captures of a multi-capture authorization keep the status, or are pending.
  capture_succeeded: ['capture_succeeded', 'capture_pending'],
  // A void the provider then refuses leaves the authorization as it was.
  authorization_void_pending: ['authorization_voided', 'authorization_succeeded'],
  authorization_declined: [],
  authorization_failed: [],
  authorization_voided: [],
};

export const ALL_STATUSES = Object.keys(TRANSITIONS) as TransactionStatus[];

export class TransitionError extends Error {
  constructor(
    readonly from: TransactionStatus,
    readonly to: TransactionStatus,
  ) {
    super(`a transaction cannot go from ${from} to ${to}`);
    this.name = 'TransitionError';
  }
}

export function canTransition(from: TransactionStatus, to: TransactionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** `to`, when the table allows it; a same-status "change" of an unchanged status is allowed too. */
export function nextStatus(from: TransactionStatus, to: TransactionStatus): TransactionStatus {
  if (from === to || canTransition(from, to)) return to;
  throw new TransitionError(from, to);
}

/** The outcome of the intent given at creation, for a status. */
export function intentOutcome(
  intent: 'authorize' | 'capture',
  status: TransactionStatus,
): 'pending' | 'succeeded' | 'failed' {
  switch (status) {
    case 'authorization_declined':
    case 'authorization_failed':
      return 'failed';
    case 'processing':
    case 'buyer_approval_pending':
      return 'pending';
    case 'capture_succeeded':
      return 'succeeded';
    case 'capture_pending':
      return intent === 'capture' ? 'pending' : 'succeeded';
    case 'authorization_voided':
    case 'authorization_void_pending':
      return intent === 'capture' ? 'failed' : 'succeeded';
    case 'authorization_succeeded':
      return intent === 'capture' ? 'pending' : 'succeeded';
  }
}

/** Statuses in which the funds are authorized and not released: capture and void act on these. */
export const AUTHORIZED: readonly TransactionStatus[] = [
  'authorization_succeeded',
  'capture_succeeded',
  'capture_pending',
];

/** Why a capture cannot start now, or null. */
export function captureRefusal(t: { status: TransactionStatus; capture_closed: boolean }): string | null {
  if (t.capture_closed) return 'The transaction cannot be captured again: a final capture or a void has closed it';
  if (t.status === 'authorization_succeeded' || t.status === 'capture_succeeded') return null;
  if (t.status === 'capture_pending') return 'A capture of this transaction is still pending at the payment service';
  return `Only an authorized transaction can be captured; this one is ${t.status}`;
}

/** Why a void cannot start now, or null. */
export function voidRefusal(t: {
  status: TransactionStatus;
  captured_amount: number;
  capture_reserved: number;
}): string | null {
  if (
    t.captured_amount > 0 ||
    t.capture_reserved > 0 ||
    t.status === 'capture_succeeded' ||
    t.status === 'capture_pending'
  ) {
    return 'A captured transaction cannot be voided; refund it instead';
  }
  if (t.status === 'authorization_succeeded') return null;
  if (t.status === 'authorization_void_pending') return 'A void of this transaction is already pending';
  return `Only an authorized, uncaptured transaction can be voided; this one is ${t.status}`;
}

/** Why a cancel cannot start now, or null: only a transaction still awaiting an outcome. */
export function cancelRefusal(t: { status: TransactionStatus }): string | null {
  if (t.status === 'processing' || t.status === 'buyer_approval_pending') return null;
  return `Only a transaction that is processing or awaiting buyer approval can be canceled; this one is ${t.status}`;
}

/** Why a refund cannot start now, or null. */
export function refundRefusal(t: { status: TransactionStatus; captured_amount: number }): string | null {
  if (t.captured_amount > 0) return null;
  return 'Only a captured transaction can be refunded; void an authorization instead';
}
