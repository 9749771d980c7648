import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { usableGiftCardService } from './gift-card-service.ts';
import * as repo from './gift-card-issuances.repo.ts';
import { issuanceRefusal } from './gift-cards.errors.ts';
import {
  toGiftCardIssuanceResource,
  type CreateGiftCardIssuanceBody,
  type GiftCardIssuance,
} from './gift-card-issuances.schemas.ts';

/**
 * `POST /gift-cards/issuances`: the gift card service issues a virtual card (outside any
 * transaction), then the issuance is recorded with its audit entry. Our issuance id is the
 * service's idempotency key, so a retried call cannot issue a second card.
 */
export async function createGiftCardIssuance(
  ctx: RequestContext,
  body: CreateGiftCardIssuanceBody,
): Promise<GiftCardIssuance> {
  const id = uuidv7();
  const service = usableGiftCardService(ctx);
  const outcome = await service.connector.issue({
    theme: body.theme,
    amount: body.amount,
    currency: body.currency,
    idempotencyKey: id,
    sandboxBaseUrl: ctx.deps.config.publicUrl,
  });
  if (!outcome.ok) throw issuanceRefusal(outcome);
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertIssuance(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id,
      theme: body.theme,
      amount: body.amount,
      currency: body.currency,
      external_identifier: body.external_identifier ?? null,
      gift_card_service_payment_issuance_id: outcome.issuanceId,
      url: outcome.url,
    });
    await recordAudit(tx, ctx, 'created', { type: 'gift-card-issuance', id, name: `gift card issuance ${body.theme}` });
    return toGiftCardIssuanceResource(row, service.resource);
  });
}
