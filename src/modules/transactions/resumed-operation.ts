import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { AttemptRow } from '../../db/schema-transactions.ts';
import type { Tx } from '../../db/transaction.ts';
import { notFound } from '../../errors/app-error.ts';
import type { OperationResult, Transaction } from './transaction.schema.ts';
import { transactionResource } from './transaction-view.ts';
import * as repo from './transactions.repo.ts';

/**
 * The `resume` of a capture, void or authorization increment (http/idempotency.ts): a retry whose
 * first request died, or failed with a 5xx, after recording its attempt answers for that attempt,
 * in the one transaction that also stores the answer. An attempt still `in_flight` never had its
 * answer recorded: `finish` records it without one (connector-call.ts, `UNANSWERED`), as a timeout
 * is, so reconciliation asks the provider; the provider is never called again. An attempt settled
 * since (its request's answer, or reconciliation) is rendered by `render` as it is now.
 */
export function resumeAttempt<T>(
  ctx: RequestContext,
  attemptId: string,
  operation: AttemptRow['operation'],
  finish: (tx: Tx, attempt: AttemptRow) => Promise<T>,
  render: (attempt: AttemptRow, transaction: Transaction) => T,
): Promise<T> {
  return withRequestTransaction(ctx, async (tx) => {
    // The attempt first, then the transaction: reconciliation locks in this order.
    const attempt = await repo.findAttempt(tx, ctx.merchantAccountId, attemptId, { forUpdate: true });
    if (!attempt || attempt.operation !== operation) throw notFound(operation, attemptId);
    if (attempt.status === 'in_flight') return finish(tx, attempt);
    const row = (await repo.findTransaction(tx, ctx.merchantAccountId, attempt.transaction_id))!;
    return render(attempt, await transactionResource(tx, ctx, row));
  });
}

/** A capture's or void's record from its attempt: a call without a final answer is `pending`. */
export function resultOfAttempt(
  type: 'transaction-capture' | 'transaction-void',
  attempt: AttemptRow,
  transaction: Transaction,
): OperationResult {
  const status =
    attempt.status === 'succeeded' || attempt.status === 'declined' || attempt.status === 'failed'
      ? attempt.status
      : 'pending';
  return {
    type,
    status,
    code: attempt.error_code,
    raw_response_code: attempt.raw_response_code,
    raw_response_description: attempt.raw_response_description,
    transaction,
  };
}
