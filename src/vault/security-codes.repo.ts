import { readRows } from '../db/write-batch.ts';
import type { Executor } from '../db/transaction.ts';

export type Owner = { type: 'payment-method' | 'checkout-session' | 'three-ds-challenge'; id: string };

/** Replaces the code held for an owner (a new one supersedes the old). */
export async function upsertSecurityCode(
  db: Executor,
  row: { merchant_account_id: string; id: string; owner: Owner; ciphertext: string; key_id: string; expires_at: Date },
): Promise<void> {
  await db
    .insertInto('vault_security_codes')
    .values({
      merchant_account_id: row.merchant_account_id,
      id: row.id,
      owner_type: row.owner.type,
      owner_id: row.owner.id,
      ciphertext: row.ciphertext,
      key_id: row.key_id,
      expires_at: row.expires_at,
    })
    .onConflict((oc) =>
      oc
        .columns(['merchant_account_id', 'owner_type', 'owner_id'])
        .doUpdateSet({ id: row.id, ciphertext: row.ciphertext, key_id: row.key_id, expires_at: row.expires_at }),
    )
    .execute();
}

/** Deletes the code of an owner and returns what was there (one use only). */
export async function takeSecurityCode(db: Executor, merchantAccountId: string, owner: Owner) {
  const query = db
    .deleteFrom('vault_security_codes')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('owner_type', '=', owner.type)
    .where('owner_id', '=', owner.id)
    .returning(['id', 'ciphertext', 'key_id', 'expires_at']);
  // Concurrent requests' deletes may share one statement; of two taking one code, one gets it (src/db/group-commit.ts).
  return (await readRows(db, query))[0];
}

export async function purgeExpiredSecurityCodes(db: Executor, now: Date, batch = 5_000): Promise<number> {
  const result = await db
    .deleteFrom('vault_security_codes')
    .where(({ eb, selectFrom }: any) =>
      eb(
        eb.refTuple('merchant_account_id', 'id'),
        'in',
        selectFrom('vault_security_codes')
          .select(['merchant_account_id', 'id'])
          .where('expires_at', '<=', now)
          .limit(batch),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
