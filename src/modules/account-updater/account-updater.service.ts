import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { lockPaymentMethods } from '../payment-methods/card-updates.service.ts';
import * as repo from './account-updater.repo.ts';
import {
  toAccountUpdaterJobResource,
  type AccountUpdaterJob,
  type CreateAccountUpdaterJobBody,
} from './account-updater.schemas.ts';
import { ACCOUNT_UPDATER_SCHEMES, NO_UPDATER } from './updater-service.ts';
import { refuseInProduction } from '../../errors/sandbox-only.ts';

const isUpdatableCard = (row: PaymentMethodRow) =>
  row.method === 'card' &&
  row.status === 'succeeded' &&
  row.number_ciphertext !== null &&
  row.scheme !== null &&
  ACCOUNT_UPDATER_SCHEMES.includes(row.scheme);

/**
 * Schedules an update of the qualifying stored cards: one inquiry each, run by one background job
 * enqueued in the same transaction. Null (204) when none qualifies; then nothing is written.
 */
export async function createAccountUpdaterJob(
  ctx: RequestContext,
  body: CreateAccountUpdaterJobBody,
): Promise<AccountUpdaterJob | null> {
  refuseInProduction(ctx.deps.config, ...NO_UPDATER);
  const merchantAccountId = ctx.merchantAccountId;
  const ids = [...new Set(body.payment_method_ids)];
  return withRequestTransaction(
    ctx,
    async (tx) => {
      // Locked: a concurrent job for the same cards waits here, then sees this one's inquiries.
      const cards = (await lockPaymentMethods(tx, merchantAccountId, ids)).filter(isUpdatableCard);
      const busy = await repo.paymentMethodsInProgress(
        tx,
        merchantAccountId,
        cards.map((card) => card.id),
      );
      const qualifying = cards.filter((card) => !busy.has(card.id));
      if (qualifying.length === 0) return null;
      const job = await repo.insertJob(tx, merchantAccountId, uuidv7());
      const inquiries = await repo.insertInquiries(
        tx,
        qualifying.map((card) => ({
          merchant_account_id: merchantAccountId,
          id: uuidv7(),
          job_id: job.id,
          payment_method_id: card.id,
        })),
      );
      await ctx.deps.queue.enqueue(
        tx,
        'run-account-updater',
        { merchant_account_id: merchantAccountId, account_updater_job_id: job.id },
        { jobKey: `run-account-updater:${merchantAccountId}:${job.id}` },
      );
      return toAccountUpdaterJobResource(job, inquiries);
    },
    { statusOf: (job) => (job === null ? 204 : ctx.successStatus) },
  );
}
