import type { Insertable, Updateable } from 'kysely';
import type { NetworkTokenRow, NetworkTokensTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

/** Tokens listed per payment method: the live one and the deleted history, newest first. */
export const LIST_LIMIT = 100;

export async function insertNetworkToken(db: Executor, row: Insertable<NetworkTokensTable>): Promise<NetworkTokenRow> {
  return db.insertInto('network_tokens').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findNetworkToken(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<NetworkTokenRow | undefined> {
  let query = db
    .selectFrom('network_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', '=', paymentMethodId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The token of a payment method that is not deleted (at most one: a unique index says so). */
export async function findLiveNetworkToken(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
): Promise<NetworkTokenRow | undefined> {
  return db
    .selectFrom('network_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', '=', paymentMethodId)
    .where('status', '<>', 'deleted')
    .executeTakeFirst();
}

export async function listNetworkTokens(
  db: Executor,
  merchantAccountId: string,
  paymentMethodId: string,
): Promise<NetworkTokenRow[]> {
  return db
    .selectFrom('network_tokens')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', '=', paymentMethodId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(LIST_LIMIT)
    .execute();
}

export async function updateNetworkToken(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Pick<Updateable<NetworkTokensTable>, 'status' | 'token_ciphertext' | 'token_key_id'>,
): Promise<NetworkTokenRow> {
  return db
    .updateTable('network_tokens')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
