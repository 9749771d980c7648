import type { SyncOutcome } from '../../../connectors/connector.ts';
import type { AttemptRow, TransactionRow } from '../../../db/schema-transactions.ts';
import { applyCapture, type Patch } from '../outcomes.ts';

const blank = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/**
 * Pure: what a status answer means for an authorize-and-capture whose capture is pending at the
 * provider (`capture_pending`, its authorization attempt still open); null: still open. Captured:
 * the reserved amount is captured. Failed (a provider's `capture_failed`, e.g. a direct debit's
 * collection returned unpaid): the authorization stands, as after a refused capture, and may be
 * captured again; the attempt, an authorization, succeeded (decision 0125).
 */
export function collectionResolution(
  row: TransactionRow,
  answer: SyncOutcome,
  now: Date,
): { patch: Patch; status: AttemptRow['status'] } | null {
  const reserved = { amount: row.capture_reserved, final: true };
  if (answer.status === 'captured')
    return { patch: applyCapture(row, { status: 'succeeded', ...blank }, reserved, now).patch, status: 'succeeded' };
  if (answer.status !== 'failed') return null;
  const codes = {
    errorCode: answer.errorCode,
    rawResponseCode: answer.rawResponseCode,
    rawResponseDescription: answer.rawResponseDescription,
  };
  return { patch: applyCapture(row, { status: 'failed', ...codes }, reserved, now).patch, status: 'succeeded' };
}
