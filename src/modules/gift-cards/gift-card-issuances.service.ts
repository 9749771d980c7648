import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { GiftCardFailure } from '../../connectors/gift-cards/gift-card-connector.ts';
import { AppError } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import {usableGiftCardService } from './gift-card-service.ts';
import * as repo from './gift-card-issuances.repo.ts';
import { toGiftCardIssuanceResource, type CreateGiftCardIssuanceBody, type GiftCardIssuance } from './gift-card-issuances.schemas.ts';

/** Refusals the caller can fix, by the field at fault; anything else is the service's fault. */
const FIELD_PROBLEMS: Record<string, string> = { invalid_amount: '/amount', incorrect_currency: '/currency' };

function issuanceRefusal(outcome: GiftCardFailure): AppError {
  const pointer = FIELD_PROBLEMS[outcome.errorCode];
  if (!pointer) return new AppError('bad_gateway', `The gift card service could not issue the gift card (${outcome.errorCode})`);
  const message = outcome.rawErrorMessage ?? outcome.errorCode;
  return new AppError('bad_request', `${message} (${outcome.errorCode})`, { details: [{ location: 'body', pointer, message, type: outcome.errorCode }] });
}

/**
 * `POST /gift-cards/issuances`: the gift card service issues a virtual card (outside any
 * transaction), then the issuance is recorded with its audit entry. Our issuance id is the
 * service's idempotency key, so a retried call cannot issue a second card.
 */
export async function createGiftCardIssuance(ctx: RequestContext, body: CreateGiftCardIssuanceBody): Promise<GiftCardIssuance> {
  const id = uuidv7();
  const service = usableGiftCardService(ctx);
  const outcome = await service.connector.issue({ theme: body.theme, amount: body.amount, currency: body.currency, idempotencyKey: id, sandboxBaseUrl: ctx.deps.config.publicUrl });
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
