import type { Insertable, Updateable } from 'kysely';
import type { PaymentServiceTokenRow, PaymentServiceTokensTable } from '../../db/schema-payment-service-tokens.ts';
import type { Executor } from '../../db/transaction.ts';

/** Tokens listed per payment method (one per payment service), newest first. */
export const LIST_LIMIT = 100;

export async function insertPaymentServiceToken(
  db: Executor,
  row: Insertable<PaymentServiceTokensTable>,
): Promise<PaymentServiceTokenRow> {
  return db.insertInto('payment_service_tokens').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findPaymentServiceToken(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<PaymentServiceTokenRow | undefined> {
  let query = db
    .selectFrom('payment_service_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', '=', paymentMethodId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The token of a (payment method, payment service) pair: at most one, a unique index says so. */
export async function findTokenOfPair(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
  paymentServiceId: string,
): Promise<PaymentServiceTokenRow | undefined> {
  return db
    .selectFrom('payment_service_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', '=', paymentMethodId)
    .where('payment_service_id', '=', paymentServiceId)
    .executeTakeFirst();
}

export async function listPaymentServiceTokens(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
  paymentServiceId: string | null,
): Promise<PaymentServiceTokenRow[]> {
  let query = db
    .selectFrom('payment_service_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', '=', paymentMethodId);
  if (paymentServiceId) query = query.where('payment_service_id', '=', paymentServiceId);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(LIST_LIMIT).execute();
}

export async function updatePaymentServiceToken(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Pick<
    Updateable<PaymentServiceTokensTable>,
    'status' | 'token_ciphertext' | 'token_key_id' | 'approval_url' | 'error_code' | 'next_check_at' | 'checks'
  >,
): Promise<PaymentServiceTokenRow> {
  return db
    .updateTable('payment_service_tokens')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Tokens still `processing` whose check is due, across merchant accounts (the reconciliation job). */
export async function listDueTokens(db: Executor, now: Date, limit: number): Promise<PaymentServiceTokenRow[]> {
  return db
    .selectFrom('payment_service_tokens')
    .selectAll()
    .where('status', '=', 'processing')
    .where('next_check_at', '<=', now)
    .orderBy('next_check_at')
    .limit(limit)
    .execute();
}

/** One token by id in a merchant account, whatever its payment method (reconciliation). */
export async function lockTokenById(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<PaymentServiceTokenRow | undefined> {
  return db
    .selectFrom('payment_service_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export async function deletePaymentServiceToken(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('payment_service_tokens')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}
