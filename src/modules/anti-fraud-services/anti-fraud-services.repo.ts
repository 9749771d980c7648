import type { Insertable } from 'kysely';
import type { AntiFraudServiceRow, AntiFraudServicesTable } from '../../db/schema-anti-fraud.ts';
import type { Executor } from '../../db/transaction.ts';

/** The partial unique index: one active service per merchant account. */
export const ACTIVE_INDEX = 'anti_fraud_services_active_key';

export async function insertAntiFraudService(
  db: Executor,
  row: Insertable<AntiFraudServicesTable>,
): Promise<AntiFraudServiceRow> {
  return db.insertInto('anti_fraud_services').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findAntiFraudService(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<AntiFraudServiceRow | undefined> {
  let query = db
    .selectFrom('anti_fraud_services')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The account's active service (the partial unique index answers), if any. */
export async function findActiveAntiFraudService(
  db: Executor,
  merchantAccountId: string,
): Promise<AntiFraudServiceRow | undefined> {
  return db
    .selectFrom('anti_fraud_services')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('active', '=', true)
    .executeTakeFirst();
}

export async function deleteAntiFraudService(db: Executor, merchantAccountId: string, id: string): Promise<void> {
  await db
    .deleteFrom('anti_fraud_services')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}
