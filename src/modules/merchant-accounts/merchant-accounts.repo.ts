import type { MerchantAccountPatch, MerchantAccountRow, NewMerchantAccount } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import { escapeLike } from '../../db/like.ts';

export async function insertMerchantAccount(
  db: Executor,
  account: NewMerchantAccount,
): Promise<MerchantAccountRow | undefined> {
  return db
    .insertInto('merchant_accounts')
    .values(account)
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function updateMerchantAccount(
  db: Executor,
  id: string,
  patch: MerchantAccountPatch,
): Promise<MerchantAccountRow | undefined> {
  return db
    .updateTable('merchant_accounts')
    .set({ ...patch, updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export async function findMerchantAccount(
  db: Executor,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<MerchantAccountRow | undefined> {
  const query = db.selectFrom('merchant_accounts').selectAll().where('id', '=', id);
  return (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

/** Accounts whose plaintext secret columns still hold a value, locked; rows another transaction holds are skipped. */
export async function lockAccountsWithPlaintextSecrets(db: Executor, batch: number): Promise<MerchantAccountRow[]> {
  return db
    .selectFrom('merchant_accounts')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('loon_secret_key', 'is not', null),
        eb('account_updater_request_encryption_key', 'is not', null),
        eb('account_updater_response_decryption_key', 'is not', null),
      ]),
    )
    .orderBy('id')
    .limit(batch)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Writes sealed secret columns without touching `updated_at`: sealing a stored value changes nothing a client sees. */
export async function setSecretColumns(
  db: Executor,
  id: string,
  patch: MerchantAccountPatch,
): Promise<MerchantAccountRow | undefined> {
  return db.updateTable('merchant_accounts').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function countMerchantAccounts(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('merchant_accounts')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface MerchantAccountFilter {
  search?: string;
  /** Only this account (credentials limited to one merchant account). */
  onlyId?: string | null;
}

/** Merchant accounts are instance-wide and few: the search is a scan filter, the order is index-backed. */
export async function listMerchantAccounts(
  db: Executor,
  filter: MerchantAccountFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<MerchantAccountRow>> {
  let query = db.selectFrom('merchant_accounts').selectAll();
  if (filter.onlyId) query = query.where('id', '=', filter.onlyId);
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    query = query.where((eb) => eb.or([eb('id', 'ilike', pattern), eb('display_name', 'ilike', pattern)]));
  }
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}
