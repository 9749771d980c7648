import { sql } from 'kysely';
import { arrayLiteral } from '../../../db/group-commit-sql.ts';
import type { SettlementRow, TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor } from '../../../db/transaction.ts';
import { withSettledAttempt, type SettledAttempt } from '../transactions.repo.ts';

/**
 * The reads of a batch of capture settlements (settle-captures.ts, decision 0151): many
 * transactions' rows and settlements in one statement each, where a settlement alone reads one.
 * The keys travel as array literals (`arrayLiteral`), the same on both drivers.
 */

/** A capture settlement's key: its transaction, and the capture's attempt (null: the captured amount not settled yet). */
export interface CaptureKey {
  merchantAccountId: string;
  transactionId: string;
  captureAttemptId: string | null;
}

type LockedRow = TransactionRow & {
  svc_key_attempt_id: string | null;
  svc_attempt_transaction_id: string | null;
  svc_attempt_operation: SettledAttempt['operation'] | null;
  svc_attempt_status: SettledAttempt['status'] | null;
  svc_attempt_amount: number | null;
};

/**
 * The transactions of `keys` (one key a transaction) `FOR UPDATE`, each with what a settlement
 * reads of its capture's attempt, as `lockTransactionWithAttempt` reads one (it says why the
 * attempt may come from the statement's snapshot). The rows are locked in key order (merchant
 * account, id), as every batch locks them, so two batches sharing transactions wait for each other
 * instead of deadlocking. A key whose transaction is not found is left out.
 */
export async function lockTransactionsWithAttempts(
  db: Executor,
  keys: readonly CaptureKey[],
): Promise<Array<{ row: TransactionRow; attempt: SettledAttempt | null; captureAttemptId: string | null }>> {
  if (keys.length === 0) return [];
  const { rows } = await sql<LockedRow>`
    SELECT t.*, k.attempt_id AS svc_key_attempt_id, a.transaction_id AS svc_attempt_transaction_id,
           a.operation AS svc_attempt_operation, a.status AS svc_attempt_status, a.amount AS svc_attempt_amount
    FROM unnest(${texts(keys.map((k) => k.merchantAccountId))}::text[], ${uuids(keys.map((k) => k.transactionId))}::uuid[],
                ${uuids(keys.map((k) => k.captureAttemptId))}::uuid[]) AS k (merchant_account_id, transaction_id, attempt_id)
    JOIN transactions t ON t.merchant_account_id = k.merchant_account_id AND t.id = k.transaction_id
    LEFT JOIN transaction_attempts a ON a.merchant_account_id = k.merchant_account_id AND a.id = k.attempt_id
    ORDER BY t.merchant_account_id, t.id
    FOR UPDATE OF t`.execute(db);
  return rows.map(({ svc_key_attempt_id: captureAttemptId, ...found }) => ({
    ...withSettledAttempt(found),
    captureAttemptId,
  }));
}

/** The settlements of the transactions `keys` (read under their row locks), oldest first in each. */
export async function listSettlementsOf(
  db: Executor,
  keys: ReadonlyArray<Pick<CaptureKey, 'merchantAccountId' | 'transactionId'>>,
): Promise<SettlementRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<SettlementRow>`
    SELECT s.* FROM settlements s
    JOIN unnest(${texts(keys.map((k) => k.merchantAccountId))}::text[], ${uuids(keys.map((k) => k.transactionId))}::uuid[])
      AS k (merchant_account_id, transaction_id)
      ON s.merchant_account_id = k.merchant_account_id AND s.transaction_id = k.transaction_id
    ORDER BY s.created_at, s.id`.execute(db);
  return rows;
}

const uuids = (values: ReadonlyArray<string | null>) => arrayLiteral(values, 'uuid')!;
const texts = (values: readonly string[]) => arrayLiteral(values, 'text')!;
