import type { AuthorizeOutcome } from '../../../connectors/connector.ts';
import type { RequestContext } from '../../../context.ts';
import type { PaymentServiceRow } from '../../../db/schema.ts';
import type { AttemptStatus, TransactionActionJson, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { credentialsOf, findUsablePaymentService } from '../../payment-services/payment-services.service.ts';
import { attemptPatch, type CallResult } from '../connector-call.ts';
import { nextCheckAt, type Applied } from '../outcomes.ts';
import { attemptEvent } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';

/**
 * One failover step (docs/routing.md, "Failover"): in one database transaction, under the
 * transaction's row lock, record the answer of the attempt that failed, record the next attempt
 * (`in_flight`, its own id as the connector's idempotency key) and point the transaction at the
 * next service with the decision in its actions. Only then is the next connector called, outside
 * any database transaction, so a crash leaves an open attempt that reconciliation settles.
 */

export interface FailedAttempt {
  row: TransactionRow;
  attemptId: string;
  result: CallResult<AuthorizeOutcome>;
}

export interface NextAttempt {
  row: TransactionRow;
  attemptId: string;
  service: PaymentServiceRow;
  credentials: Record<string, string>;
}

/** The attempt status and error code of an answer that let the cascade go on (never an approval or a timeout). */
function failedAs(result: CallResult<AuthorizeOutcome>): { status: AttemptStatus; errorCode: string | null } {
  if (!result.ok)
    return { status: 'failed', errorCode: result.kind === 'unavailable' ? 'service_network_error' : 'service_error' };
  return { status: result.value.status === 'declined' ? 'declined' : 'failed', errorCode: result.value.errorCode };
}

/**
 * Moves the transaction to `nextServiceId`; null when it cannot go on: the transaction is no
 * longer `processing` (canceled meanwhile) or the next service vanished (deleted meanwhile). The
 * failed attempt is then left for the caller's usual finish, which records its answer.
 */
export async function failOver(
  ctx: RequestContext,
  failed: FailedAttempt,
  nextServiceId: string,
  reason: string,
  attemptNumber: number,
  flow: TransactionActionJson['flow'],
  ruleId: string,
): Promise<NextAttempt | null> {
  return withTransaction(ctx.deps.db, async (tx) => {
    const current = await repo.findTransaction(tx, ctx.merchantAccountId, failed.row.id, { forUpdate: true });
    if (!current || current.status !== 'processing') return null;
    const service = await findUsablePaymentService(tx, ctx.merchantAccountId, nextServiceId);
    if (!service || !service.active) return null;
    const now = new Date();
    const as = failedAs(failed.result);
    // The attempt's outcome only: the transaction itself goes on (its status stays `processing`).
    const applied: Applied = {
      attemptStatus: as.status,
      eventName:
        as.status === 'declined'
          ? 'payment-connector-response-transaction-declined'
          : 'payment-connector-response-transaction-authorization-failed',
      patch: {},
    };
    await repo
      .updateAttemptQuery(
        tx,
        ctx.merchantAccountId,
        failed.attemptId,
        attemptPatch(
          failed.result,
          applied,
          now,
          failed.result.ok ? failed.result.value.providerTransactionId : null,
          as.errorCode,
        ),
      )
      .execute();
    const attemptId = uuidv7();
    await repo.insertAttempt(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id: attemptId,
      transaction_id: current.id,
      operation: 'authorize',
      status: 'in_flight',
      amount: current.amount,
      payment_service_id: service.id,
      next_check_at: nextCheckAt(0, now),
    });
    const decision: TransactionActionJson = {
      id: 'route-transaction',
      flow,
      rule_id: ruleId,
      created_at: now.toISOString(),
      outcome: {
        failover: {
          from: current.payment_service_id,
          reason,
          attempt_id: failed.attemptId,
          error_code: as.errorCode,
          to: service.id,
          attempt: attemptNumber + 1,
        },
      },
    };
    const row = await repo.updateTransaction(tx, ctx.merchantAccountId, current.id, {
      payment_service_id: service.id,
      payment_service: JSON.stringify({
        type: 'payment-service',
        id: service.id,
        payment_service_definition_id: service.payment_service_definition_id,
        method: service.method,
        display_name: service.display_name,
      }),
      actions: JSON.stringify([...current.actions, decision]),
    });
    // The failed call's event names the service it went to (the row before the move).
    await repo.insertEvents(tx, [
      attemptEvent(current, failed.attemptId, 'authorize', current.amount, failed.result, applied, now),
    ]);
    return { row, attemptId, service, credentials: await credentialsOf(tx, ctx.deps, service) };
  });
}
