import { sql } from 'kysely';
import type { IdempotencyKeyRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { runWrites } from '../../db/write-batch.ts';
import type { Sealed } from '../../vault/vault.ts';

export interface KeyId {
  merchantAccountId: string;
  owner: string;
  key: string;
}

export interface NewClaim extends KeyId {
  method: string;
  path: string;
  requestHash: string;
  credentialHash: string;
  lockedUntil: Date;
  expiresAt: Date;
}

const byId = (id: KeyId) => (qb: any) =>
  qb.where('merchant_account_id', '=', id.merchantAccountId).where('owner', '=', id.owner).where('key', '=', id.key);

/**
 * Inserts a processing claim; returns false when the key already exists. Outside a transaction
 * the insert may be written together with other requests' claims (src/db/group-commit.ts): two
 * claims of one key never share a statement, so each learns whether its own row went in.
 */
export async function insertClaim(db: Executor, claim: NewClaim): Promise<boolean> {
  const insert = db
    .insertInto('idempotency_keys')
    .values({
      merchant_account_id: claim.merchantAccountId,
      owner: claim.owner,
      key: claim.key,
      method: claim.method,
      path: claim.path,
      request_hash: claim.requestHash,
      credential_hash: claim.credentialHash,
      state: 'processing',
      locked_until: claim.lockedUntil,
      expires_at: claim.expiresAt,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('key');
  const rows = await runWrites(db, [insert], { column: 'key', value: claim.key });
  return rows.length > 0;
}

export async function lockKey(db: Executor, id: KeyId): Promise<IdempotencyKeyRow | undefined> {
  return byId(id)(db.selectFrom('idempotency_keys').selectAll()).forUpdate().executeTakeFirst();
}

/**
 * Replaces an expired or abandoned claim with a fresh one. `resourceId`: the resource the abandoned
 * claim had bound (kept so that a later takeover still resumes it), or null.
 */
export async function renewClaim(db: Executor, claim: NewClaim, resourceId: string | null = null): Promise<void> {
  await byId(claim)(
    db.updateTable('idempotency_keys').set({
      resource_id: resourceId,
      method: claim.method,
      path: claim.path,
      request_hash: claim.requestHash,
      credential_hash: claim.credentialHash,
      state: 'processing',
      response_status: null,
      response_body: null,
      response_key_id: null,
      locked_until: claim.lockedUntil,
      expires_at: claim.expiresAt,
    }),
  ).execute();
}

/** Stores the response, sealed by the vault (the table refuses a body without its key id). */
export async function completeKey(db: Executor, id: KeyId, status: number, body: Sealed): Promise<void> {
  await completeKeyQuery(db, id, status, body).execute();
}

/** The write of `completeKey`, for a caller that runs it in one statement with its own (db/write-batch.ts). */
export function completeKeyQuery(db: Executor, id: KeyId, status: number, body: Sealed) {
  return db
    .updateTable('idempotency_keys')
    .set({ state: 'completed', response_status: status, response_body: body.ciphertext, response_key_id: body.keyId })
    .where('merchant_account_id', '=', id.merchantAccountId)
    .where('owner', '=', id.owner)
    .where('key', '=', id.key);
}

/** Binds the resource the claim's request created; a statement to run with the write that creates it. */
export function bindResourceQuery(db: Executor, id: KeyId, resourceId: string) {
  return db
    .updateTable('idempotency_keys')
    .set({ resource_id: resourceId })
    .where('merchant_account_id', '=', id.merchantAccountId)
    .where('owner', '=', id.owner)
    .where('key', '=', id.key);
}

/**
 * Gives up a processing claim so that a retry runs. A claim with a bound resource is kept with its
 * lease ended instead (the epoch): the retry then resumes that resource rather than creating another.
 */
export async function releaseKey(db: Executor, id: KeyId): Promise<void> {
  await byId(id)(db.deleteFrom('idempotency_keys'))
    .where('state', '=', 'processing')
    .where('resource_id', 'is', null)
    .execute();
  await byId(id)(db.updateTable('idempotency_keys').set({ locked_until: new Date(0) }))
    .where('state', '=', 'processing')
    .where('resource_id', 'is not', null)
    .execute();
}

/** Deletes up to `batch` expired keys; returns how many went. */
export async function purgeExpiredKeys(db: Executor, now: Date, batch = 5_000): Promise<number> {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(({ eb, selectFrom }: any) =>
      eb(
        eb.refTuple('merchant_account_id', 'owner', 'key'),
        'in',
        selectFrom('idempotency_keys')
          .select(['merchant_account_id', 'owner', 'key'])
          .where('expires_at', '<', now)
          .limit(batch),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface UnkeyedHash {
  merchant_account_id: string;
  owner: string;
  key: string;
  request_hash: string;
}

/** Keys whose request hash predates migration 0038 (not `k…`), across merchant accounts, through that migration's partial index. */
export async function findUnkeyedRequestHashes(db: Executor, batch: number): Promise<UnkeyedHash[]> {
  return (
    db
      .selectFrom('idempotency_keys')
      .select(['merchant_account_id', 'owner', 'key', 'request_hash'])
      // A literal, as in the index's predicate: a parameter would keep a generic plan off the index.
      .where(sql<boolean>`request_hash NOT LIKE 'k%'`)
      .limit(batch)
      .execute()
  );
}

export interface RekeyedHash extends UnkeyedHash {
  keyed: string;
}

/** Replaces each row's request hash by its keyed form, in one statement, where it is still the one read; returns how many. */
export async function setRekeyedHashes(db: Executor, rows: readonly RekeyedHash[]): Promise<number> {
  const column = <K extends keyof RekeyedHash>(name: K) => sql.val(rows.map((row) => row[name]));
  const result = await sql`
    UPDATE idempotency_keys k SET request_hash = r.keyed
    FROM unnest(${column('merchant_account_id')}::text[], ${column('owner')}::text[], ${column('key')}::text[], ${column('request_hash')}::text[], ${column('keyed')}::text[])
      AS r(merchant_account_id, owner, key, request_hash, keyed)
    WHERE k.merchant_account_id = r.merchant_account_id AND k.owner = r.owner AND k.key = r.key AND k.request_hash = r.request_hash`.execute(
    db,
  );
  return Number(result.numAffectedRows ?? 0);
}
