import type { Deps } from '../../../context.ts';
import { sendReversal, settleOpenRedemption } from '../../gift-cards/gift-cards.service.ts';
import { listOpenRedemptions } from '../../gift-cards/gift-card-redemptions.repo.ts';
import { reverseRedeemed, systemContext } from '../gift-card-tender.ts';
import { settleGiftCardRefund } from '../refund/gift-card-refund.service.ts';
import * as repo from '../transactions.repo.ts';

type Log = { warn(obj: object, msg?: string): void; info(obj: object, msg?: string): void };

/** A record younger than this may still belong to a live request (its call under way): left alone. */
export const GIFT_CARD_GRACE_MS = 5 * 60 * 1000;

/**
 * The `reconcile-gift-cards` job: what crashes left open at the gift card service, settled with its
 * status query only (no redemption or refund is sent again):
 * - a redemption still `created` gets the answer the service gave its call (`not_found`: failed,
 *   nothing taken); one found succeeded for a payment that has ended unpaid meanwhile is given back;
 * - a reversal still `pending` is asked about, and sent (with its one key) only if the service never
 *   received it;
 * - a gift card refund still `processing` gets the service's answer, or is declined and its
 *   reservation released when the service never received it.
 * Returns how many records it settled.
 */
export async function reconcileGiftCards(
  deps: Deps,
  now: Date,
  log: Log = { warn: () => undefined, info: () => undefined },
): Promise<number> {
  const before = new Date(now.getTime() - GIFT_CARD_GRACE_MS);
  let settled = 0;
  const context = (merchantAccountId: string) => systemContext(deps, merchantAccountId, 'reconcileGiftCards', log);
  for (const open of await listOpenRedemptions(deps.db, before, 100)) {
    const ctx = context(open.merchant_account_id);
    try {
      if (open.status === 'created') {
        const row = await settleOpenRedemption(ctx, open.id);
        if (!row || row.status === 'created') continue;
        settled++;
        const transaction =
          row.status === 'succeeded'
            ? await repo.findTransaction(deps.db, row.merchant_account_id, row.transaction_id)
            : null;
        if (transaction) await reverseRedeemed(ctx, transaction);
      } else if ((await sendReversal(ctx, open.id, true))?.reversal_status !== 'pending') {
        settled++;
      }
    } catch (error) {
      log.warn(
        { err: error, redemptionId: open.id },
        'reconciliation of a gift card redemption failed; it is tried again later',
      );
    }
  }
  for (const refund of await repo.listOpenGiftCardRefunds(deps.db, before, 100)) {
    try {
      if ((await settleGiftCardRefund(context(refund.merchant_account_id), refund.id))?.status !== 'processing')
        settled++;
    } catch (error) {
      log.warn(
        { err: error, refundId: refund.id },
        'reconciliation of a gift card refund failed; it is tried again later',
      );
    }
  }
  return settled;
}
