import { sql, type Insertable, type Updateable } from 'kysely';
import type { CheckoutSessionRow, CheckoutSessionsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export type CheckoutSessionPatch = Omit<Updateable<CheckoutSessionsTable>, 'merchant_account_id' | 'id' | 'created_at'>;

/** The card columns, all cleared: what purging a session's card data writes. */
export const NO_CARD_DATA = {
  method: null,
  payment_method_id: null,
  scheme: null,
  bin: null,
  last4: null,
  expiration_date: null,
  fingerprint: null,
  number_ciphertext: null,
  number_key_id: null,
} as const satisfies CheckoutSessionPatch;

export async function insertCheckoutSession(
  db: Executor,
  row: Insertable<CheckoutSessionsTable>,
): Promise<CheckoutSessionRow> {
  return db.insertInto('checkout_sessions').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findCheckoutSession(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<CheckoutSessionRow | undefined> {
  let query = db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * The credential lookup of the fields endpoint: the session id alone, before any merchant account
 * is known (the id is the credential and names its merchant account).
 */
export async function findCheckoutSessionCredential(db: Executor, id: string) {
  return db
    .selectFrom('checkout_sessions')
    .select(['merchant_account_id', 'id', 'expires_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateCheckoutSession(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: CheckoutSessionPatch,
): Promise<CheckoutSessionRow> {
  return db
    .updateTable('checkout_sessions')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteCheckoutSession(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('checkout_sessions')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

/** Clears the card data of up to `batch` expired sessions; returns the sessions it cleared. */
export async function purgeExpiredCardData(
  db: Executor,
  now: Date,
  batch = 1_000,
): Promise<Array<{ merchant_account_id: string; id: string }>> {
  const result = await sql<{ merchant_account_id: string; id: string }>`
    UPDATE checkout_sessions
       SET method = NULL, payment_method_id = NULL, scheme = NULL, bin = NULL, last4 = NULL, expiration_date = NULL,
           fingerprint = NULL, number_ciphertext = NULL, number_key_id = NULL, updated_at = now()
     WHERE (merchant_account_id, id) IN (
       SELECT merchant_account_id, id FROM checkout_sessions
        WHERE method IS NOT NULL AND expires_at <= ${now}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)
    RETURNING merchant_account_id, id`.execute(db);
  return result.rows;
}

/** Deletes up to `batch` sessions that expired at or before `before`; returns how many it deleted. */
export async function deleteExpiredSessions(db: Executor, before: Date, batch = 1_000): Promise<number> {
  const result = await sql`
    DELETE FROM checkout_sessions
     WHERE (merchant_account_id, id) IN (
       SELECT merchant_account_id, id FROM checkout_sessions
        WHERE expires_at <= ${before}
        LIMIT ${batch} FOR UPDATE SKIP LOCKED)`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
