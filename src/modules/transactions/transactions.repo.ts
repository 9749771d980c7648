import { sql, type Compilable, type UpdateObject, type Updateable } from 'kysely';
import type { Database } from '../../db/schema.ts';
import type {
  AttemptRow,
  NewAttempt,
  NewTransaction,
  RefundRow,
  SettlementRow,
  TransactionAttemptsTable,
  TransactionRow,
  RefundsTable,
} from '../../db/schema-transactions.ts';
import { insertQuery } from '../../db/insert-query.ts';
import { columnIs, columnPlus, rowByKeys, selectByKeysQuery, updateByKeysQuery } from '../../db/keyed-queries.ts';
import type { Executor } from '../../db/transaction.ts';
import { runWrites } from '../../db/write-batch.ts';
import { decodeTransactionRow, encodeTransactionWrite } from './snapshot-codec.ts';

/** `with`: writes to run in the same statement (src/db/write-batch.ts), e.g. an idempotency key's binding. */
export async function insertTransaction(
  db: Executor,
  row: NewTransaction,
  withWrites: Compilable<unknown>[] = [],
): Promise<TransactionRow> {
  const insert = db.insertInto('transactions').values(encodeTransactionWrite(row, 'insert')).returningAll();
  if (withWrites.length === 0) return decodeTransactionRow(await insert.executeTakeFirstOrThrow());
  const [inserted] = await runWrites<TransactionRow>(db, [...withWrites, insert]);
  return decodeTransactionRow(inserted!);
}

export async function findTransaction(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<TransactionRow | undefined> {
  const row = await rowByKeys(
    db,
    'transactions',
    [
      ['merchant_account_id', merchantAccountId],
      ['id', id],
    ],
    options,
  );
  return row && decodeTransactionRow(row);
}

/** What a capture's settlement reads of the capture's attempt. */
export type SettledAttempt = Pick<AttemptRow, 'transaction_id' | 'operation' | 'status' | 'amount'>;

/**
 * The transaction `FOR UPDATE`, with what a settlement reads of the attempt `attemptId`, in one
 * statement. The attempt comes from the statement's snapshot, taken before any wait for the lock:
 * it may be read so only because a capture's settlement is enqueued in the database transaction that
 * records its attempt succeeded (so it is committed before the settlement can run), and nothing
 * changes a succeeded capture's attempt again. Anything that another holder of
 * the lock may have written (the settlements) is read after this statement.
 */
export async function lockTransactionWithAttempt(
  db: Executor,
  merchantAccountId: string,
  id: string,
  attemptId: string,
): Promise<{ row: TransactionRow; attempt: SettledAttempt | null } | undefined> {
  const found = await db
    .selectFrom('transactions as t')
    .leftJoin('transaction_attempts as a', (join) =>
      join.onRef('a.merchant_account_id', '=', 't.merchant_account_id').on('a.id', '=', attemptId),
    )
    .selectAll('t')
    .select([
      'a.transaction_id as svc_attempt_transaction_id',
      'a.operation as svc_attempt_operation',
      'a.status as svc_attempt_status',
      'a.amount as svc_attempt_amount',
    ])
    .where('t.merchant_account_id', '=', merchantAccountId)
    .where('t.id', '=', id)
    .forUpdate('t')
    .executeTakeFirst();
  return found && withSettledAttempt(found);
}

/** A transaction's row read with its attempt's `svc_attempt_*` columns, as the row and the attempt (null: no attempt). */
export function withSettledAttempt(
  found: TransactionRow & {
    svc_attempt_transaction_id: string | null;
    svc_attempt_operation: SettledAttempt['operation'] | null;
    svc_attempt_status: SettledAttempt['status'] | null;
    svc_attempt_amount: number | string | null;
  },
): { row: TransactionRow; attempt: SettledAttempt | null } {
  const {
    svc_attempt_transaction_id: transactionId,
    svc_attempt_operation: operation,
    svc_attempt_status: status,
    svc_attempt_amount: amount,
    ...row
  } = found;
  const attempt =
    transactionId === null || operation === null || status === null || amount === null
      ? null
      : { transaction_id: transactionId, operation, status, amount: Number(amount) };
  return { row: decodeTransactionRow(row), attempt };
}

/** The transaction a payment service knows by its own id (inbound provider webhooks). */
export async function findTransactionByProviderId(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  providerTransactionId: string,
): Promise<TransactionRow | undefined> {
  const row = await db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_transaction_id', '=', providerTransactionId)
    .where('payment_service_id', '=', paymentServiceId)
    .executeTakeFirst();
  return row && decodeTransactionRow(row);
}

/**
 * Updates the transaction only while it still has `status` (nobody moved it since it was read),
 * returning the row; for a guarded statement (src/db/write-batch.ts). The row lock is taken by the
 * update itself.
 *
 * The status test is written `(status = $n) is true` so that no index can serve it and the row is
 * found by its primary key whatever the statistics say. As `status = $n`, a plan made without
 * statistics (a new database, or no autovacuum) finds it through `transactions_status_idx`
 * (merchant, status, …, id): every transaction passes through `processing`, so that walked the
 * merchant's whole history of entries for each authorization (decision 0026).
 */
export function updateTransactionIfStatusQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  status: TransactionRow['status'],
  patch: TransactionPatch,
  updatedAt: Date,
) {
  return updateByKeysQuery<TransactionRow>(
    db,
    'transactions',
    { ...encodeTransactionWrite(patch), updated_at: updatedAt },
    [
      ['merchant_account_id', merchantAccountId],
      ['id', id],
    ],
    {
      conditions: [sql<boolean>`(status = ${status}) is true`],
      returningAll: true,
    },
  );
}

/** Columns a guarded update may require to hold the values they were read with. */
const BASIS_COLUMNS = [
  'status',
  'authorized_amount',
  'capture_limit',
  'captured_amount',
  'capture_reserved',
  'capture_closed',
  'refunded_amount',
  'refund_reserved',
  'updated_at',
] as const;

export type TransactionBasis = Partial<Pick<TransactionRow, (typeof BASIS_COLUMNS)[number]>>;

/** Amount columns an update moves relative to the stored row. */
export type TransactionAmounts = Partial<
  Pick<TransactionRow, 'captured_amount' | 'capture_reserved' | 'refunded_amount' | 'refund_reserved'>
>;

/**
 * Updates the transaction only while every column of `basis` still holds the value it was read
 * with (nobody changed what the caller decided from), returning the row; for a guarded statement
 * (src/db/write-batch.ts). `add` moves amounts relative to the stored row, `patch` sets values.
 * Each test is written `(column = $n) is true`, as in `updateTransactionIfStatusQuery`, so that
 * the row is found by its primary key only; the columns come in one fixed order, so that every
 * request writes the same text (src/db/group-commit.ts).
 */
export function updateTransactionIfUnchangedQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  change: { basis: TransactionBasis; add?: TransactionAmounts; patch?: TransactionPatch; updatedAt: Date },
) {
  // An amount moved takes the place of the same column in the patch, as an object spread would.
  const set: Record<string, unknown> = { ...(change.patch && encodeTransactionWrite(change.patch)) };
  for (const [column, amount] of Object.entries(change.add ?? {}) as Array<
    [keyof TransactionAmounts, number | undefined]
  >) {
    if (amount !== undefined) set[column] = columnPlus(column, amount);
  }
  set.updated_at = change.updatedAt;
  const conditions = [];
  for (const column of BASIS_COLUMNS) {
    const value = change.basis[column];
    if (value !== undefined) conditions.push(columnIs(column, value));
  }
  return updateByKeysQuery<TransactionRow>(
    db,
    'transactions',
    set,
    [
      ['merchant_account_id', merchantAccountId],
      ['id', id],
    ],
    { conditions, returningAll: true },
  );
}

/** Column values, or SQL expressions (such as `overCaptureLimit`). */
export type TransactionPatch = UpdateObject<Database, 'transactions'>;

/** The newest transaction made through a payment link (index `transactions_payment_link_idx` of 0026). */
export async function findLatestOfPaymentLink(
  db: Executor,
  merchantAccountId: string,
  paymentLinkId: string,
): Promise<Pick<TransactionRow, 'id' | 'status' | 'error_code' | 'approval_url'> | undefined> {
  return db
    .selectFrom('transactions')
    .select(['id', 'status', 'error_code', 'approval_url'])
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_link_id', '=', paymentLinkId)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** `updateTransaction`'s statement without its answer, for a caller that renders the row itself (predicted-row.ts) with `updatedAt`. */
export function updateTransactionQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: TransactionPatch,
  updatedAt: Date,
) {
  return updateByKeysQuery(db, 'transactions', { ...encodeTransactionWrite(patch), updated_at: updatedAt }, [
    ['merchant_account_id', merchantAccountId],
    ['id', id],
  ]);
}

export async function updateTransaction(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: TransactionPatch,
): Promise<TransactionRow> {
  const row = await db
    .updateTable('transactions')
    .set({ ...encodeTransactionWrite(patch), updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return decodeTransactionRow(row);
}

export async function insertAttempt(db: Executor, row: NewAttempt): Promise<AttemptRow> {
  return db.insertInto('transaction_attempts').values(row).returningAll().executeTakeFirstOrThrow();
}

export function insertAttemptQuery(db: Executor, row: NewAttempt) {
  return insertQuery(db, 'transaction_attempts', row);
}

/** The transaction and its first attempt in one round trip (src/db/write-batch.ts). */
export async function insertTransactionWithAttempt(
  db: Executor,
  row: NewTransaction,
  attempt: NewAttempt,
  withWrites: Compilable<unknown>[] = [],
): Promise<TransactionRow> {
  // Concurrent requests' inserts may share one statement (src/db/group-commit.ts).
  const [inserted] = await runWrites<TransactionRow>(
    db,
    [
      insertAttemptQuery(db, attempt),
      ...withWrites,
      insertQuery(db, 'transactions', encodeTransactionWrite(row, 'insert'), 'all'),
    ],
    { column: 'id', value: row.id },
  );
  return decodeTransactionRow(inserted!);
}

export async function findAttempt(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<AttemptRow | undefined> {
  return (
    await selectByKeysQuery(
      db,
      'transaction_attempts',
      [
        ['merchant_account_id', merchantAccountId],
        ['id', id],
      ],
      options,
    ).execute()
  )[0];
}

export async function updateAttempt(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<TransactionAttemptsTable>,
): Promise<AttemptRow> {
  return db
    .updateTable('transaction_attempts')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** `updatedAt`: given when the caller renders the attempt as the update leaves it (a capture's webhook event). */
export function updateAttemptQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<TransactionAttemptsTable>,
  updatedAt: Date = new Date(),
) {
  return updateByKeysQuery(db, 'transaction_attempts', { ...patch, updated_at: updatedAt }, [
    ['merchant_account_id', merchantAccountId],
    ['id', id],
  ]);
}

/** The capture attempts of one transaction, newest first (index `transaction_attempts_txn_idx`). */
export async function listCaptures(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('operation', '=', 'capture')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function findCapture(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  id: string,
): Promise<AttemptRow | undefined> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .where('transaction_id', '=', transactionId)
    .where('operation', '=', 'capture')
    .executeTakeFirst();
}

/** The provider call of a refund (none for a gift card redemption's refund), locked when asked (index `transaction_attempts_txn_idx`). */
export async function findRefundAttempt(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  refundId: string,
  options: { forUpdate?: boolean } = {},
): Promise<AttemptRow | undefined> {
  const query = db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('refund_id', '=', refundId);
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

/** The void sent for a late authorization (its authorize attempt); at most one, a unique index says so. */
export async function findCompensatingAttempt(
  db: Executor,
  merchantAccountId: string,
  authorizeAttemptId: string,
): Promise<AttemptRow | undefined> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('compensates_attempt_id', '=', authorizeAttemptId)
    .executeTakeFirst();
}

/** Attempts of one transaction that have no final outcome yet (sync asks the connector about these). */
export async function listOpenAttempts(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('status', 'in', ['in_flight', 'unknown', 'pending'])
    .orderBy('created_at')
    .execute();
}

/** Attempts due for reconciliation, across merchant accounts (the reconciliation job). */
export async function listDueAttempts(db: Executor, now: Date, limit: number): Promise<AttemptRow[]> {
  return db
    .selectFrom('transaction_attempts')
    .selectAll()
    .where('status', 'in', ['in_flight', 'unknown', 'pending'])
    .where('next_check_at', '<=', now)
    .orderBy('next_check_at')
    .limit(limit)
    .execute();
}

// The history's writes and reads (one row per write, read as events: decision 0150).
export { insertEvents, insertEventsQuery, listEvents } from './history.repo.ts';

export async function insertRefund(db: Executor, row: import('kysely').Insertable<RefundsTable>): Promise<RefundRow> {
  return insertRefundQuery(db, row).returningAll().executeTakeFirstOrThrow();
}

export function insertRefundQuery(db: Executor, row: import('kysely').Insertable<RefundsTable>) {
  return db.insertInto('refunds').values(row);
}

/** The refund's answer, only while the refund is still `status` (returning the row); for a guarded statement (src/db/write-batch.ts). */
export function updateRefundIfStatusQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  status: RefundRow['status'],
  patch: Updateable<RefundsTable>,
  updatedAt: Date,
) {
  return db
    .updateTable('refunds')
    .set({ ...patch, updated_at: updatedAt })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .where('status', '=', status)
    .returningAll();
}

/**
 * A refund's reservation released, and counted as refunded when it `succeeded`: relative to the
 * row as it is when the statement runs (no read first); the table's checks keep the sums right.
 */
export function releaseRefundReservationQuery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  amount: number,
  succeeded: boolean,
  updatedAt: Date,
) {
  return db
    .updateTable('transactions')
    .set((eb) => ({
      refund_reserved: eb('refund_reserved', '-', amount),
      ...(succeeded ? { refunded_amount: eb('refunded_amount', '+', amount) } : {}),
      updated_at: updatedAt,
    }))
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
}

export async function updateRefund(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<RefundsTable>,
): Promise<RefundRow> {
  return db
    .updateTable('refunds')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A refund's settlement record was written: `settled` (migration 0047). */
export function markRefundSettledQuery(db: Executor, merchantAccountId: string, id: string, now: Date) {
  return db
    .updateTable('refunds')
    .set({ settled: true, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
}

export async function findRefund(
  db: Executor,
  merchantAccountId: string,
  id: string,
  transactionId?: string,
): Promise<RefundRow | undefined> {
  let query = db
    .selectFrom('refunds')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (transactionId) query = query.where('transaction_id', '=', transactionId);
  return query.executeTakeFirst();
}

/** Gift card refunds a crash may have left `processing`, every merchant account, untouched since `before`; partial index `refunds_gift_card_open_idx`. */
export async function listOpenGiftCardRefunds(db: Executor, before: Date, limit: number): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'processing')
    .where('target_type', '=', 'gift-card-redemption')
    .where('updated_at', '<=', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

export async function listRefunds(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<RefundRow[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function listSettlements(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<SettlementRow[]> {
  return db
    .selectFrom('settlements')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findSettlement(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  id: string,
): Promise<SettlementRow | undefined> {
  return db
    .selectFrom('settlements')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The settlements of the transaction's refunds (refund settlements), oldest first. */
export async function listRefundSettlements(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
): Promise<Array<SettlementRow & { refund_id: string }>> {
  const rows = await db
    .selectFrom('settlements')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('refund_id', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows as Array<SettlementRow & { refund_id: string }>;
}

export async function findRefundSettlement(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  id: string,
): Promise<(SettlementRow & { refund_id: string }) | undefined> {
  const row = await db
    .selectFrom('settlements')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId)
    .where('id', '=', id)
    .where('refund_id', 'is not', null)
    .executeTakeFirst();
  return row as (SettlementRow & { refund_id: string }) | undefined;
}

/** A settlement record, for a caller that runs it with its other writes (settlements.service.ts); `settlements_once_idx` refuses a second one. */
export function insertSettlementQuery(
  db: Executor,
  row:
    | import('kysely').Insertable<import('../../db/schema-transactions.ts').SettlementsTable>
    | ReadonlyArray<import('kysely').Insertable<import('../../db/schema-transactions.ts').SettlementsTable>>,
) {
  return insertQuery(db, 'settlements', row);
}

/** A transaction's refund the payment service knows by its own id (a provider's refund report line; refunds_psp_id_idx). */
export async function findRefundByProviderId(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  providerRefundId: string,
): Promise<RefundRow | undefined> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_refund_id', '=', providerRefundId)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
}
