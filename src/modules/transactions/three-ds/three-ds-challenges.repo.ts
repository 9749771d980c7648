import type { Updateable } from 'kysely';
import type {
  NewThreeDsChallenge,
  ThreeDsChallengeRow,
  ThreeDsChallengesTable,
} from '../../../db/schema-three-ds-challenges.ts';
import type { Executor } from '../../../db/transaction.ts';

export async function insertChallenge(db: Executor, row: NewThreeDsChallenge): Promise<ThreeDsChallengeRow> {
  return db.insertInto('three_ds_challenges').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findChallenge(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<ThreeDsChallengeRow | undefined> {
  let query = db
    .selectFrom('three_ds_challenges')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function findChallengeOfTransaction(
  db: Executor,
  merchantAccountId: string,
  transactionId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ThreeDsChallengeRow | undefined> {
  let query = db
    .selectFrom('three_ds_challenges')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('transaction_id', '=', transactionId);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function updateChallenge(
  db: Executor,
  merchantAccountId: string,
  id: string,
  patch: Updateable<ThreeDsChallengesTable>,
): Promise<ThreeDsChallengeRow> {
  return db
    .updateTable('three_ds_challenges')
    .set({ ...patch, updated_at: new Date() })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Pending challenges whose time ran out, across merchant accounts (the timeout sweep). */
export async function listExpiredChallenges(
  db: Executor,
  now: Date,
  limit: number,
): Promise<Array<Pick<ThreeDsChallengeRow, 'merchant_account_id' | 'id'>>> {
  return db
    .selectFrom('three_ds_challenges')
    .select(['merchant_account_id', 'id'])
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}
