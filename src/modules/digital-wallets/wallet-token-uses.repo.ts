import type { Insertable, Selectable } from 'kysely';
import type { WalletTokenUsesTable } from '../../db/schema-digital-wallets.ts';
import type { Executor } from '../../db/transaction.ts';

export type WalletTokenUseRow = Selectable<WalletTokenUsesTable>;

/**
 * Records the use unless the token was used already: false then. A concurrent use of the same token
 * waits here for the other database transaction and gets false once it commits (the primary key).
 */
export async function insertTokenUse(db: Executor, row: Insertable<WalletTokenUsesTable>): Promise<boolean> {
  const inserted = await db
    .insertInto('wallet_token_uses')
    .values(row)
    .onConflict((c) => c.columns(['merchant_account_id', 'token_hash']).doNothing())
    .returning('token_hash')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function findTokenUse(
  db: Executor,
  merchantAccountId: string,
  tokenHash: string,
): Promise<WalletTokenUseRow | undefined> {
  return db
    .selectFrom('wallet_token_uses')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Deletes up to `batch` uses whose token cannot be accepted any more; returns how many. */
export async function purgeExpiredTokenUses(db: Executor, now: Date, batch = 5_000): Promise<number> {
  const result = await db
    .deleteFrom('wallet_token_uses')
    .where(({ eb, selectFrom }: any) =>
      eb(
        eb.refTuple('merchant_account_id', 'token_hash'),
        'in',
        selectFrom('wallet_token_uses')
          .select(['merchant_account_id', 'token_hash'])
          .where('expires_at', '<=', now)
          .limit(batch),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
