import type {
  DigitalWalletPatch,
  DigitalWalletProvider,
  DigitalWalletRow,
  NewDigitalWallet,
  TokenDecryption,
} from '../../db/schema-digital-wallets.ts';
import type { Executor } from '../../db/transaction.ts';

/**
 * Inserts the wallet unless the merchant account has one of its provider already (the unique index
 * of 0027): null then, and the caller names the existing one.
 */
export async function insertWallet(db: Executor, row: NewDigitalWallet): Promise<DigitalWalletRow | null> {
  const inserted = await db
    .insertInto('digital_wallets')
    .values(row)
    .onConflict((c) => c.columns(['merchant_account_id', 'provider']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? null;
}

export async function findWallet(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<DigitalWalletRow | undefined> {
  let query = db
    .selectFrom('digital_wallets')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findWalletByProvider(
  db: Executor,
  merchantAccountId: string,
  provider: DigitalWalletProvider,
): Promise<DigitalWalletRow | undefined> {
  return db
    .selectFrom('digital_wallets')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

/** Every wallet of the merchant account (at most one per provider), by provider. */
export async function listWallets(db: Executor, merchantAccountId: string): Promise<DigitalWalletRow[]> {
  return db
    .selectFrom('digital_wallets')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .orderBy('provider')
    .execute();
}

/** The providers the merchant account registered and who decrypts their tokens (payment options). */
export async function listProviders(
  db: Executor,
  merchantAccountId: string,
): Promise<Array<{ provider: DigitalWalletProvider; tokenDecryption: TokenDecryption }>> {
  const rows = await db
    .selectFrom('digital_wallets')
    .select(['provider', 'token_decryption'])
    .where('merchant_account_id', '=', merchantAccountId)
    .execute();
  return rows.map((r) => ({ provider: r.provider, tokenDecryption: r.token_decryption }));
}

export async function updateWallet(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: DigitalWalletPatch,
): Promise<DigitalWalletRow> {
  return db
    .updateTable('digital_wallets')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteWallet(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('digital_wallets')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}
