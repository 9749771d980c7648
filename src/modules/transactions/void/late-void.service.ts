import type { AuthorizeOutcome, VoidOutcome } from '../../../connectors/connector.ts';
import type { Deps } from '../../../context.ts';
import type { AttemptRow, AttemptStatus, TransactionRow } from '../../../db/schema-transactions.ts';
import { withTransaction, type Tx } from '../../../db/transaction.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { uuidToBase62 } from '../../../lib/base62.ts';
import {
  attemptPatch,
  callConnector,
  connectorOfTransaction,
  paymentHint,
  type BoundConnector,
  type CallResult,
} from '../connector-call.ts';
import { nextCheckAt } from '../outcomes.ts';
import { event } from '../transaction-events.ts';
import * as repo from '../transactions.repo.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/**
 * An authorization answered after its transaction was closed (canceled while the connector was
 * called, or found by reconciliation after a cancel): the money is held at the provider for a
 * payment nobody will capture. Called in the transaction that records the late answer: it keeps
 * the provider's reference on the authorize attempt and enqueues the void, which runs after commit.
 */
export async function scheduleLateVoid(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  attemptId: string,
  providerReference: string | null,
): Promise<void> {
  if (providerReference)
    await repo.updateAttempt(tx, row.merchant_account_id, attemptId, { provider_reference: providerReference });
  await repo.insertEvents(tx, [
    event(row, 'transaction-late-authorization-void-scheduled', { attempt_id: attemptId }, new Date()),
  ]);
  await deps.queue.enqueue(
    tx,
    'void-late-authorization',
    { merchant_account_id: row.merchant_account_id, transaction_id: row.id, attempt_id: attemptId },
    {
      jobKey: `void-late-authorization:${row.merchant_account_id}:${attemptId}`,
    },
  );
}

/**
 * An authorization answer the closed transaction can no longer take (it was canceled while the
 * connector was called): kept on its attempt (`late_outcome`) and logged; a success is voided at
 * the provider by `scheduleLateVoid`.
 */
export async function recordLateAnswer(
  tx: Tx,
  deps: Deps,
  log: Log,
  row: TransactionRow,
  attemptId: string,
  result: CallResult<AuthorizeOutcome> | null,
): Promise<void> {
  log.warn(
    { transactionId: row.id, status: row.status },
    'authorization answer arrived after the transaction was closed',
  );
  const late =
    result?.ok && ['authorized', 'captured', 'capture_pending'].includes(result.value.status) ? 'succeeded' : 'failed';
  await repo.updateAttempt(tx, row.merchant_account_id, attemptId, {
    status: late,
    error_code: 'late_outcome',
    next_check_at: null,
  });
  if (result?.ok && late === 'succeeded')
    await scheduleLateVoid(tx, deps, row, attemptId, result.value.providerTransactionId);
}

interface Planned {
  row: TransactionRow;
  attempt: AttemptRow;
  bound: BoundConnector;
}

/**
 * Phase 1: records the `void` attempt (its id is the provider's idempotency key) before the call.
 * Null when there is nothing to send: no provider reference, or a void already answered or left to
 * reconciliation. An `in_flight` one (the job died during its call) is sent again with its key.
 */
async function recordVoidAttempt(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  authorizeAttemptId: string,
): Promise<Planned | null> {
  return withTransaction(deps.db, async (tx) => {
    const row = await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    const authorization = await repo.findAttempt(tx, merchantAccountId, authorizeAttemptId);
    if (!row || !authorization || authorization.transaction_id !== row.id || !authorization.provider_reference)
      return null;
    const existing = await repo.findCompensatingAttempt(tx, merchantAccountId, authorizeAttemptId);
    if (existing && existing.status !== 'in_flight') return null;
    const attempt =
      existing ??
      (await repo.insertAttempt(tx, {
        merchant_account_id: merchantAccountId,
        id: uuidv7(),
        transaction_id: row.id,
        operation: 'void',
        status: 'in_flight',
        payment_service_id: row.payment_service_id,
        provider_reference: authorization.provider_reference,
        compensates_attempt_id: authorizeAttemptId,
        next_check_at: nextCheckAt(0, new Date()),
      }));
    return { row, attempt, bound: await connectorOfTransaction(tx, deps, row) };
  });
}

/**
 * The void attempt after its call (`attemptPatch`, with the answer's own status: no state machine,
 * the transaction itself is not changed, it stays closed). A request that certainly did not
 * complete is failed; a timeout is unknown and reconciliation asks later.
 */
export function lateVoidAttemptPatch(
  result: CallResult<VoidOutcome>,
  now: Date,
  providerReference: string | null = null,
) {
  const status: AttemptStatus | null = result.ok ? result.value.status : result.kind === 'timeout' ? null : 'failed';
  return attemptPatch(result, status ? { attemptStatus: status } : null, nextCheckAt(0, now), providerReference);
}

const VOID_EVENT: Record<AttemptStatus, string> = {
  succeeded: 'payment-connector-response-transaction-void-succeeded',
  pending: 'payment-connector-response-transaction-void-succeeded',
  declined: 'payment-connector-response-transaction-void-declined',
  failed: 'payment-connector-response-transaction-void-failed',
  unknown: 'payment-connector-response-transaction-void-failed',
  in_flight: 'payment-connector-response-transaction-void-failed',
};

/**
 * The `void-late-authorization` job: record the void attempt, call the connector outside any
 * database transaction (STYLE D4), record the outcome on the attempt and in the history.
 */
export async function voidLateAuthorizationNow(
  deps: Deps,
  merchantAccountId: string,
  transactionId: string,
  authorizeAttemptId: string,
  log: Log,
): Promise<void> {
  const planned = await recordVoidAttempt(deps, merchantAccountId, transactionId, authorizeAttemptId);
  if (!planned) return;
  const { row, attempt, bound } = planned;
  const result = await callConnector(
    () =>
      bound.connector.void({
        idempotencyKey: attempt.id,
        credentials: bound.credentials,
        options: bound.options,
        payment: paymentHint(row),
        providerTransactionId: attempt.provider_reference ?? '',
        reference: uuidToBase62(row.id),
      }),
    log,
  );
  await withTransaction(deps.db, async (tx) => {
    await repo.findTransaction(tx, merchantAccountId, transactionId, { forUpdate: true });
    const current = await repo.findAttempt(tx, merchantAccountId, attempt.id, { forUpdate: true });
    // Reconciliation answered it meanwhile.
    if (!current || current.status !== 'in_flight') return;
    const now = new Date();
    const patch = lateVoidAttemptPatch(result, now, attempt.provider_reference);
    await repo.updateAttempt(tx, merchantAccountId, attempt.id, patch);
    await repo.insertEvents(tx, [
      event(
        row,
        VOID_EVENT[patch.status],
        {
          attempt_id: attempt.id,
          operation: 'void',
          late_authorization_attempt_id: authorizeAttemptId,
          amount: 0,
          payment_service_id: row.payment_service_id,
          outcome: patch.status,
          error_code: patch.error_code,
          raw_response_code: patch.raw_response_code,
          raw_response_description: patch.raw_response_description,
          duration_ms: result.ms,
        },
        now,
      ),
    ]);
    if (patch.status === 'declined' || patch.status === 'failed')
      log.warn(
        { transactionId, attemptId: attempt.id, errorCode: patch.error_code },
        'the void of a late authorization was refused; the authorization lapses at the provider',
      );
  });
}
