import type { Insertable } from 'kysely';
import type {
  AccountUpdaterInquiriesTable,
  AccountUpdaterInquiryRow,
  AccountUpdaterJobRow,
  AccountUpdaterOutcome,
} from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';

export async function insertJob(db: Executor, merchantAccountId: string, id: string): Promise<AccountUpdaterJobRow> {
  return db
    .insertInto('account_updater_jobs')
    .values({ merchant_account_id: merchantAccountId, id })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Inserts inquiries in id order; the partial unique index refuses a second one in progress for a method. */
export async function insertInquiries(
  db: Executor,
  rows: Insertable<AccountUpdaterInquiriesTable>[],
): Promise<AccountUpdaterInquiryRow[]> {
  if (rows.length === 0) return [];
  return db.insertInto('account_updater_inquiries').values(rows).returningAll().execute();
}

/** Which of `paymentMethodIds` already have an inquiry in progress. */
export async function paymentMethodsInProgress(
  db: Executor,
  merchantAccountId: string,
  paymentMethodIds: readonly string[],
): Promise<Set<string>> {
  if (paymentMethodIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('account_updater_inquiries')
    .select('payment_method_id')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('payment_method_id', 'in', [...paymentMethodIds])
    .where('status', '=', 'pending')
    .execute();
  return new Set(rows.map((row) => row.payment_method_id));
}

export async function listPendingInquiryIds(db: Executor, merchantAccountId: string, jobId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('account_updater_inquiries')
    .select('id')
    .where('merchant_account_id', '=', merchantAccountId)
    .where('job_id', '=', jobId)
    .where('status', '=', 'pending')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

export async function findInquiry(
  db: Executor,
  merchantAccountId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<AccountUpdaterInquiryRow | undefined> {
  let query = db
    .selectFrom('account_updater_inquiries')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function completeInquiry(
  db: Executor,
  merchantAccountId: string,
  id: string,
  outcome: AccountUpdaterOutcome,
  now: Date,
): Promise<void> {
  await db
    .updateTable('account_updater_inquiries')
    .set({ status: 'completed', outcome, completed_at: now, updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .execute();
}

/** Marks the job completed once none of its inquiries is pending. */
export async function completeJobIfDone(
  db: Executor,
  merchantAccountId: string,
  jobId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('account_updater_jobs')
    .set({ status: 'completed', updated_at: now })
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', jobId)
    .where('status', '=', 'processing')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('account_updater_inquiries')
            .select('id')
            .where('account_updater_inquiries.merchant_account_id', '=', merchantAccountId)
            .where('account_updater_inquiries.job_id', '=', jobId)
            .where('account_updater_inquiries.status', '=', 'pending'),
        ),
      ),
    )
    .execute();
}
