import type { Updateable } from 'kysely';
import type { ApiKeyPairRow, ApiKeyPairsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../http/cursor.ts';

export interface NewKeyPair {
  id: string;
  thumbprint: string;
  publicJwk: Record<string, string>;
  displayName: string;
  merchantAccountId: string | null;
  /** Role slugs limiting the pair's tokens; null or absent: none. */
  roleSlugs?: string[] | null;
}

export type KeyPairPatch = Pick<Updateable<ApiKeyPairsTable>, 'display_name' | 'active' | 'revoked_at' | 'deleted_at'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function values(pair: NewKeyPair) {
  return {
    id: pair.id,
    thumbprint: pair.thumbprint,
    public_jwk: JSON.stringify(pair.publicJwk),
    display_name: pair.displayName,
    merchant_account_id: pair.merchantAccountId,
    role_slugs: pair.roleSlugs ?? null,
  };
}

export async function insertKeyPair(db: Executor, pair: NewKeyPair): Promise<ApiKeyPairRow> {
  return db.insertInto('api_key_pairs').values(values(pair)).returningAll().executeTakeFirstOrThrow();
}

/** Inserts the pair unless its thumbprint is registered already (deleted pairs included): then undefined. */
export async function insertKeyPairIfNew(db: Executor, pair: NewKeyPair): Promise<ApiKeyPairRow | undefined> {
  return db
    .insertInto('api_key_pairs')
    .values(values(pair))
    .onConflict((oc) => oc.column('thumbprint').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Any pair with this thumbprint, deleted or not (the key cache and the duplicate check need both). */
export async function findKeyPairByThumbprint(db: Executor, thumbprint: string): Promise<ApiKeyPairRow | undefined> {
  return db.selectFrom('api_key_pairs').selectAll().where('thumbprint', '=', thumbprint).executeTakeFirst();
}

/** A pair that is not deleted, by id (a UUID) or kid (its thumbprint). */
export async function findKeyPair(
  db: Executor,
  idOrThumbprint: string,
  options: { forUpdate?: boolean } = {},
): Promise<ApiKeyPairRow | undefined> {
  let query = db
    .selectFrom('api_key_pairs')
    .selectAll()
    .where(UUID.test(idOrThumbprint) ? 'id' : 'thumbprint', '=', idOrThumbprint)
    .where('deleted_at', 'is', null);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export interface KeyPairFilter {
  /** Only pairs limited to this merchant account (a caller limited to it). */
  merchantAccountId: string | null;
}

/** Newest first, deleted pairs left out; the order is index-backed (api_key_pairs_created_idx). */
export async function listKeyPairs(
  db: Executor,
  filter: KeyPairFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<ApiKeyPairRow>> {
  let query = db.selectFrom('api_key_pairs').selectAll().where('deleted_at', 'is', null);
  if (filter.merchantAccountId !== null) query = query.where('merchant_account_id', '=', filter.merchantAccountId);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}

/** Every pair that is not deleted, newest first (the CLI's list; key pairs are few). */
export async function listAllKeyPairs(db: Executor): Promise<ApiKeyPairRow[]> {
  return db
    .selectFrom('api_key_pairs')
    .selectAll()
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function countKeyPairs(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('api_key_pairs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateKeyPair(db: Executor, id: string, patch: KeyPairPatch): Promise<ApiKeyPairRow> {
  return db
    .updateTable('api_key_pairs')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
