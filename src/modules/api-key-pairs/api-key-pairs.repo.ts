import type { Executor } from '../../db/transaction.ts';
import type { ApiKeyPairRow } from '../../db/schema.ts';

export interface NewKeyPair {
  id: string;
  thumbprint: string;
  publicJwk: Record<string, string>;
  displayName: string;
  merchantAccountId: string | null;
}

export async function insertKeyPair(db: Executor, pair: NewKeyPair): Promise<ApiKeyPairRow> {
  return db
    .insertInto('api_key_pairs')
    .values({
      id: pair.id,
      thumbprint: pair.thumbprint,
      public_jwk: JSON.stringify(pair.publicJwk),
      display_name: pair.displayName,
      merchant_account_id: pair.merchantAccountId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findKeyPairByThumbprint(db: Executor, thumbprint: string): Promise<ApiKeyPairRow | undefined> {
  return db.selectFrom('api_key_pairs').selectAll().where('thumbprint', '=', thumbprint).executeTakeFirst();
}

export async function findKeyPair(db: Executor, idOrThumbprint: string): Promise<ApiKeyPairRow | undefined> {
  const isUuid = /^[0-9a-f-]{36}$/i.test(idOrThumbprint);
  return db
    .selectFrom('api_key_pairs')
    .selectAll()
    .where(isUuid ? 'id' : 'thumbprint', '=', idOrThumbprint)
    .executeTakeFirst();
}

export async function listKeyPairs(db: Executor): Promise<ApiKeyPairRow[]> {
  return db.selectFrom('api_key_pairs').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export async function countKeyPairs(db: Executor): Promise<number> {
  const row = await db.selectFrom('api_key_pairs').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function revokeKeyPair(db: Executor, id: string): Promise<ApiKeyPairRow | undefined> {
  return db
    .updateTable('api_key_pairs')
    .set({ active: false, revoked_at: new Date(), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
