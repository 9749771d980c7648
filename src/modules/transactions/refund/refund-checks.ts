import type { TransactionRow } from '../../../db/schema-transactions.ts';
import { AppError, invalidField } from '../../../errors/app-error.ts';
import { refundRefusal } from '../transaction-status.ts';
import type { TransactionBasis } from '../transactions.repo.ts';

/** The columns `planRefund` reads. */
export type RefundFacts = Pick<TransactionRow, 'status' | 'captured_amount' | 'refunded_amount' | 'refund_reserved'>;

/**
 * Pure: the amount a refund reserves, checked as both reservations (under the row lock, and the
 * guarded statement of refund-transaction.service.ts) check it. Null when nothing is left to
 * refund and `requireAmount` is false (`refunds/all`).
 */
export function planRefund(row: RefundFacts, body: { amount?: number | null }, requireAmount: boolean): number | null {
  const refusal = refundRefusal(row);
  if (refusal) throw new AppError('bad_request', refusal);
  const refundable = row.captured_amount - row.refunded_amount - row.refund_reserved;
  const amount = body.amount ?? refundable;
  if (amount <= 0) {
    if (!requireAmount) return null;
    throw new AppError('bad_request', 'Nothing is left to refund on this transaction');
  }
  if (amount > refundable)
    throw invalidField('body', '/amount', `amount exceeds what can be refunded (${refundable} is left)`);
  return amount;
}

/** Pure: the values `planRefund` decided from; a reservation made from them is right while they hold. */
export function refundBasis(row: RefundFacts): TransactionBasis {
  return {
    status: row.status,
    captured_amount: row.captured_amount,
    refunded_amount: row.refunded_amount,
    refund_reserved: row.refund_reserved,
  };
}
