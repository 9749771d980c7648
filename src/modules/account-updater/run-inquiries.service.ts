import type { Deps } from '../../context.ts';
import { toPaymentMethodResource } from '../payment-methods/payment-methods.schemas.ts';
import { emitEvent } from '../events/events.service.ts';
import type { PaymentMethodRow } from '../../db/schema.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import type { JobContext } from '../../jobs/job.ts';
import { recordSystemAudit, type SystemActor } from '../audit-logs/audit-logs.service.ts';
import {
  lockPaymentMethods,
  markCardClosed,
  readCardNumber,
  replaceCardNumber,
  replaceExpirationDate,
} from '../payment-methods/card-updates.service.ts';
import * as repo from './account-updater.repo.ts';
import { inquire, type UpdaterAnswer } from './updater-service.ts';
import { isProduction } from '../../errors/sandbox-only.ts';

const ACTOR_NAME = 'System (account updater)';

async function applyAnswer(
  tx: Tx,
  deps: Deps,
  card: PaymentMethodRow,
  answer: UpdaterAnswer,
  now: Date,
): Promise<PaymentMethodRow | null> {
  switch (answer.outcome) {
    case 'expiration_date_updated':
      return replaceExpirationDate(tx, card, answer.expirationDate, now);
    case 'number_updated':
      return replaceCardNumber(tx, deps, card, answer.number, now);
    case 'closed':
      return markCardClosed(tx, card, now);
    case 'no_change':
      return null;
  }
}

/** One inquiry in its own transaction: a crash part-way leaves the rest pending for the retry. */
async function runInquiry(deps: Deps, merchantAccountId: string, inquiryId: string, job: JobContext): Promise<void> {
  const actor: SystemActor = { name: ACTOR_NAME, jobName: 'run-account-updater', jobId: job.jobId };
  await withTransaction(deps.db, async (tx) => {
    const inquiry = await repo.findInquiry(tx, merchantAccountId, inquiryId, { forUpdate: true });
    // Gone with its payment method, or answered by an earlier run of this job.
    if (!inquiry || inquiry.status !== 'pending') return;
    const [card] = await lockPaymentMethods(tx, merchantAccountId, [inquiry.payment_method_id]);
    const number = card ? await readCardNumber(tx, deps, card) : null;
    // The number stays in this function: it goes to the updater and, when replaced, back to the vault.
    const answer: UpdaterAnswer =
      card && number && card.status === 'succeeded'
        ? inquire({ number, expirationDate: card.expiration_date })
        : { outcome: 'no_change' };
    const now = new Date();
    const updated = card ? await applyAnswer(tx, deps, card, answer, now) : null;
    if (updated) {
      await recordSystemAudit(tx, merchantAccountId, actor, 'updated', {
        type: 'payment-method',
        id: updated.id,
        name: `${updated.scheme ?? updated.method} ${updated.last4 ?? ''}`.trim(),
      });
      await emitEvent(tx, deps, {
        merchantAccountId,
        kind: 'payment_method.updated',
        resourceType: 'payment-method',
        resourceId: updated.id,
        payload: toPaymentMethodResource(updated),
      });
    }
    await repo.completeInquiry(tx, merchantAccountId, inquiryId, answer.outcome, now);
    job.log.info(
      {
        merchant_account_id: merchantAccountId,
        inquiry_id: inquiryId,
        payment_method_id: inquiry.payment_method_id,
        outcome: answer.outcome,
      },
      'account updater inquiry answered',
    );
  });
}

/** Runs every pending inquiry of an account updater job, then marks the job completed. Idempotent. */
export async function runAccountUpdaterJob(
  deps: Deps,
  merchantAccountId: string,
  jobId: string,
  job: JobContext,
): Promise<void> {
  // A job enqueued in the sandbox gets no simulated answers once the server runs in production: its
  // inquiries stay pending (docs/production.md).
  if (isProduction(deps.config)) {
    job.log.warn(
      { merchant_account_id: merchantAccountId, account_updater_job_id: jobId },
      'account updater job not run: the account updater is a sandbox simulation, not available in production',
    );
    return;
  }
  for (const inquiryId of await repo.listPendingInquiryIds(deps.db, merchantAccountId, jobId)) {
    await runInquiry(deps, merchantAccountId, inquiryId, job);
  }
  await repo.completeJobIfDone(deps.db, merchantAccountId, jobId, new Date());
}
