import type { AttemptStatus, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Patch } from '../outcomes.ts';

/**
 * What an increase's answer does to its transaction (pure; the answer at once and reconciliation
 * share it). Approved while the authorization is still open: the authorized amount and what may be
 * captured grow by `amount`. Approved after the authorization was closed meanwhile (voided,
 * captured in full): nothing changes here (`late`), since closing it released the whole hold.
 */
export function incrementPatch(
  row: TransactionRow,
  status: 'succeeded' | 'declined' | 'failed',
  amount: number,
): { attemptStatus: AttemptStatus; patch: Patch; raised: boolean; late: boolean } {
  if (status !== 'succeeded') return { attemptStatus: status, patch: {}, raised: false, late: false };
  const open = row.status === 'authorization_succeeded' && !row.capture_closed;
  if (!open) return { attemptStatus: 'succeeded', patch: {}, raised: false, late: true };
  return {
    attemptStatus: 'succeeded',
    patch: { authorized_amount: row.authorized_amount + amount, capture_limit: row.capture_limit + amount },
    raised: true,
    late: false,
  };
}
