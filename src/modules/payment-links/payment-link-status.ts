import type { PaymentLinkStatus } from '../../db/schema-payment-links.ts';
import type { TransactionStatus } from '../../db/schema-transactions.ts';

/**
 * The payment link state machine (docs/payment-links.md, "Lifecycle"). Pure, unit-tested beside.
 *
 *   active ──► processing ──► completed          (the payment was authorized: single use)
 *     │  ▲          │
 *     │  └──────────┘                            (the payment was declined or failed: pay again)
 *     └──► expired  ◄─── processing              (expires_at passed, or POST .../expire)
 */
const TRANSITIONS: Readonly<Record<PaymentLinkStatus, readonly PaymentLinkStatus[]>> = {
  active: ['processing', 'expired'],
  processing: ['completed', 'active', 'expired'],
  completed: [],
  expired: [],
};

export function canTransition(from: PaymentLinkStatus, to: PaymentLinkStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** A link past its `expires_at` reads as expired unless a payment through it is still in flight. */
export function isDue(link: { status: PaymentLinkStatus; expires_at: Date }, now: Date): boolean {
  return link.status === 'active' && link.expires_at.getTime() <= now.getTime();
}

/** What a payment's transaction status means for its link: paid, not paid, or not known yet. */
export function paymentOutcome(status: TransactionStatus): 'paid' | 'unpaid' | 'pending' {
  switch (status) {
    case 'processing':
    case 'buyer_approval_pending':
      return 'pending';
    case 'authorization_declined':
    case 'authorization_failed':
      return 'unpaid';
    // Authorized (a later void or refund is the merchant's business; the link was paid).
    case 'authorization_succeeded':
    case 'capture_pending':
    case 'capture_succeeded':
    case 'authorization_void_pending':
    case 'authorization_voided':
      return 'paid';
  }
}

/** The link's status once its payment ended: completed when paid, else active again (or expired when its time has passed). */
export function afterPayment(outcome: 'paid' | 'unpaid', expiresAt: Date, now: Date): PaymentLinkStatus {
  if (outcome === 'paid') return 'completed';
  return expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** Why a link cannot be paid now, as a key of the page's translations, or null. */
export function payRefusal(
  link: { status: PaymentLinkStatus; expires_at: Date },
  now: Date,
): 'completed' | 'expired' | 'processing' | null {
  if (link.status === 'completed') return 'completed';
  if (link.status === 'expired' || isDue(link, now)) return 'expired';
  if (link.status === 'processing') return 'processing';
  return null;
}
