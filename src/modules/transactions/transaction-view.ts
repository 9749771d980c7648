import type { RequestContext } from '../../context.ts';
import type { TransactionRow } from '../../db/schema-transactions.ts';
import type { Executor } from '../../db/transaction.ts';
import { canReadPersonalData } from '../buyers/buyers.service.ts';
import { giftCardServiceResource } from '../gift-cards/gift-card-service.ts';
import {
  listTransactionGiftCardRedemptions,
  redemptionsByTransaction,
} from '../gift-cards/gift-card-redemptions.service.ts';
import { sessionTokenOf } from './session-open.ts';
import { toTransactionResource } from './transaction.resource.ts';
import type { Transaction, TransactionSummary } from './transaction.schema.ts';

/**
 * The full transaction resource as the caller may see it: PII masked without the scope, the
 * session token of an open session, and the gift card redemptions of a multi-tender transaction
 * (one indexed query, only for those).
 */
export async function transactionResource(
  db: Executor,
  ctx: RequestContext,
  row: TransactionRow,
): Promise<Transaction> {
  const resource = toTransactionResource(row, canReadPersonalData(ctx));
  // The browser's credential for the transaction's session (webhook snapshots carry none).
  resource.session_token = sessionTokenOf(ctx.deps, row);
  if (!row.multi_tender) return resource;
  const redemptions = await listTransactionGiftCardRedemptions(db, ctx, row.id);
  return {
    ...resource,
    gift_card_redemptions: redemptions,
    gift_card_service: giftCardServiceResource(row.merchant_account_id),
  };
}

/** List items: the gift card redemptions of the page's multi-tender transactions in one query. */
export async function withGiftCards(
  db: Executor,
  ctx: RequestContext,
  rows: readonly TransactionRow[],
  items: TransactionSummary[],
): Promise<TransactionSummary[]> {
  const multi = rows.filter((row) => row.multi_tender).map((row) => row.id);
  if (multi.length === 0) return items;
  const redemptions = await redemptionsByTransaction(db, ctx, multi);
  return items.map((item, index) =>
    rows[index]!.multi_tender
      ? {
          ...item,
          gift_card_redemptions: redemptions.get(item.id) ?? [],
          gift_card_service: giftCardServiceResource(ctx.merchantAccountId),
        }
      : item,
  );
}
