import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type {
  NewPayout,
  NewPayoutAttempt,
  PayoutAttemptPatch,
  PayoutAttemptRow,
  PayoutPatch,
  PayoutRow,
  PayoutStatus,
} from '../../db/schema-payouts.ts';
import type { Executor } from '../../db/transaction.ts';
import type { CursorPosition } from '../../http/cursor.ts';

/** The payout and its attempt, written together before the connector call. */
export async function insertPayoutWithAttempt(
  db: Executor,
  payout: NewPayout,
  attempt: NewPayoutAttempt,
): Promise<PayoutRow> {
  const row = await db.insertInto('payouts').values(payout).returningAll().executeTakeFirstOrThrow();
  await db.insertInto('payout_attempts').values(attempt).execute();
  return row;
}

export async function findPayout(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PayoutRow | undefined> {
  let query = db
    .selectFrom('payouts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updatePayout(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: PayoutPatch,
  now: Date,
): Promise<PayoutRow> {
  return db
    .updateTable('payouts')
    .set({ ...patch, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findAttempt(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PayoutAttemptRow | undefined> {
  let query = db
    .selectFrom('payout_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A payout of a payment service by the provider's id of it (a provider's webhook names it). */
export async function findPayoutOfProvider(
  db: Executor,
  merchantAccountId: string,
  paymentServiceId: string,
  providerPayoutId: string,
): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_service_payout_id', '=', providerPayoutId)
    .where('payment_service_id', '=', paymentServiceId)
    .executeTakeFirst();
}

/** The provider call a payout was recorded with (one per payout). */
export async function findAttemptOfPayout(
  db: Executor,
  merchantAccountId: string,
  payoutId: string,
): Promise<PayoutAttemptRow | undefined> {
  return db
    .selectFrom('payout_attempts')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payout_id', '=', payoutId)
    .orderBy('created_at')
    .executeTakeFirst();
}

export async function updateAttempt(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: PayoutAttemptPatch,
  now = new Date(),
): Promise<void> {
  await db
    .updateTable('payout_attempts')
    .set({ ...patch, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

/** Reconciliation: open attempts that are due, across merchant accounts (the partial index of 0020). */
export async function listDueAttempts(db: Executor, now: Date, limit: number): Promise<PayoutAttemptRow[]> {
  return db
    .selectFrom('payout_attempts')
    .selectAll()
    .where('status', 'in', ['in_flight', 'unknown', 'pending'])
    .where('next_check_at', '<=', now)
    .orderBy('next_check_at')
    .limit(limit)
    .execute();
}

export interface PayoutFilter {
  createdAt: { gte?: Date; lte?: Date };
  updatedAt: { gte?: Date; lte?: Date };
  externalIdentifier?: string;
  paymentServicePayoutId?: string;
  statuses?: PayoutStatus[];
}

/** The filtered list, newest first, keyset on (created_at, id); each filter has an index of 0020. */
export async function listPayouts(
  db: Executor,
  merchantAccountId: string,
  f: PayoutFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<PayoutRow>> {
  let query = db.selectFrom('payouts').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (f.createdAt.gte) query = query.where('created_at', '>=', f.createdAt.gte);
  if (f.createdAt.lte) query = query.where('created_at', '<=', f.createdAt.lte);
  if (f.updatedAt.gte) query = query.where('updated_at', '>=', f.updatedAt.gte);
  if (f.updatedAt.lte) query = query.where('updated_at', '<=', f.updatedAt.lte);
  if (f.externalIdentifier !== undefined) query = query.where('external_identifier', '=', f.externalIdentifier);
  if (f.paymentServicePayoutId !== undefined)
    query = query.where('payment_service_payout_id', '=', f.paymentServicePayoutId);
  if (f.statuses) query = query.where('status', 'in', f.statuses);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}
