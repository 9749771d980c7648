import { isEmbed, withRequestTransaction, type RequestContext } from '../../context.ts';
import type {
  GiftCardActivateOutcome,
  GiftCardActivated,
  GiftCardFailure,
} from '../../connectors/gift-cards/gift-card-connector.ts';
import type { GiftCardActivationRow, GiftCardRow } from '../../db/schema.ts';
import type { Tx } from '../../db/transaction.ts';
import { type AppError, fieldRefusal, forbidden } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { resolveBuyerReference, type BuyerReference } from '../buyers/buyers.service.ts';
import { embedBuyerPins, singleBuyerReference } from '../buyers/embed-buyer.ts';
import * as activations from './gift-card-activations.repo.ts';
import { usableGiftCardService } from './gift-card-service.ts';
import { cardDigits, giftCardFingerprint, sealGiftCard } from './gift-card-vault.ts';
import * as repo from './gift-cards.repo.ts';
import {
  toActivatedGiftCardResource,
  toGiftCardResource,
  type CreateGiftCardActivationBody,
  type GiftCard,
} from './gift-cards.schemas.ts';
import { giftCardAlreadyStored, giftCardRefusal } from './gift-cards.errors.ts';

/** The value to load: amount and currency together, or neither (the card's own face value). */
function valueOf(body: CreateGiftCardActivationBody): GiftCardActivated | null {
  const amount = body.amount ?? null;
  const currency = body.currency ?? null;
  if (amount !== null && currency === null)
    throw fieldRefusal('body', '/currency', 'currency is required when amount is given', 'missing');
  if (currency !== null && amount === null)
    throw fieldRefusal('body', '/amount', 'amount is required when currency is given', 'missing');
  return amount === null || currency === null ? null : { amount, currency };
}

/**
 * The store rules: `pin` is required to store, and a buyer is named only to store (by one key).
 * Buyer keys equal to an embed token's pins were filled in by the token, not chosen: without
 * `store` they are ignored, so a token pinning a buyer can still activate without storing.
 */
function buyerOf(ctx: RequestContext, body: CreateGiftCardActivationBody): BuyerReference | null {
  const pins = embedBuyerPins(ctx);
  if (!body.store) {
    const chosen = (['buyer_id', 'buyer_external_identifier'] as const).find(
      (field) => body[field] != null && body[field] !== pins[field],
    );
    if (chosen) throw fieldRefusal('body', `/${chosen}`, `${chosen} applies only when store is true`);
    return null;
  }
  if (!body.pin) throw fieldRefusal('body', '/pin', 'pin is required when store is true', 'missing');
  const reference = singleBuyerReference(body, 'body');
  // As for POST /gift-cards: an embed token links a card only to the buyer it pins.
  if (reference && isEmbed(ctx.principal) && Object.keys(pins).length === 0)
    throw forbidden('This embed token pins no buyer: it may not store a gift card for one');
  return reference;
}

const alreadyActive = () => fieldRefusal('body', '/number', 'The gift card is already active', 'invalid_gift_card');

function activationRefusal(outcome: GiftCardFailure & { alreadyActive?: boolean }): AppError {
  return outcome.alreadyActive ? alreadyActive() : giftCardRefusal(outcome);
}

/** Thrown inside the transaction when a unique index refuses a concurrent copy. */
class Concurrent extends Error {
  constructor(readonly what: 'activation' | 'gift-card') {
    super(what);
  }
}

/**
 * `POST /gift-cards/activations`: the gift card service activates the card (outside any
 * transaction, after every check that needs no service), then one transaction records the
 * activation (which the simulator's balance reads), stores the card when `store` is true (its id
 * is the activation's), and writes the audit entries.
 */
export async function activateGiftCard(ctx: RequestContext, body: CreateGiftCardActivationBody): Promise<GiftCard> {
  const value = valueOf(body);
  const reference = buyerOf(ctx, body);
  const { db } = ctx.deps;
  const buyer = reference ? await resolveBuyerReference(db, ctx, reference) : null;
  const fingerprint = await giftCardFingerprint(db, ctx, body.number);
  const previous =
    (await activations.activatedByFingerprint(db, ctx.merchantAccountId, [fingerprint])).get(fingerprint) ?? null;
  const id = uuidv7();
  const service = usableGiftCardService(ctx);
  const outcome = await service.connector.activate({
    number: body.number,
    pin: body.pin ?? null,
    value,
    activated: previous,
    idempotencyKey: id,
  });
  if (!outcome.ok) throw activationRefusal(outcome);
  try {
    return await withRequestTransaction(ctx, async (tx) => {
      const card = body.store
        ? await storeCard(
            tx,
            ctx,
            id,
            body as CreateGiftCardActivationBody & { pin: string },
            buyer?.id ?? null,
            fingerprint,
            outcome,
          )
        : null;
      const row = await recordActivation(tx, ctx, id, body, fingerprint, card?.id ?? null, outcome);
      return card
        ? toGiftCardResource(card, service.resource, buyer)
        : toActivatedGiftCardResource(row, service.resource);
    });
  } catch (error) {
    if (!(error instanceof Concurrent)) throw error;
    if (error.what === 'activation') throw alreadyActive();
    const existing = await repo.findGiftCardByFingerprint(db, ctx.merchantAccountId, fingerprint);
    throw giftCardAlreadyStored(existing?.id);
  }
}

type Activated = Extract<GiftCardActivateOutcome, { ok: true }>;

/** The activation row the simulator's balance reads, with its audit entry. */
async function recordActivation(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  body: CreateGiftCardActivationBody,
  fingerprint: string,
  giftCardId: string | null,
  outcome: Activated,
): Promise<GiftCardActivationRow> {
  const row = await activations.insertActivation(tx, {
    merchant_account_id: ctx.merchantAccountId,
    id,
    fingerprint,
    ...cardDigits(body.number),
    amount: outcome.balance,
    currency: outcome.currency,
    external_identifier: body.external_identifier ?? null,
    gift_card_id: giftCardId,
    gift_card_service_activation_id: outcome.activationId,
    expiration_date: outcome.expirationDate,
  });
  if (!row) throw new Concurrent('activation');
  await recordAudit(tx, ctx, 'created', {
    type: 'gift-card-activation',
    id,
    name: `gift card activation ${row.last4}`,
  });
  return row;
}

/** Stores the activated card as POST /gift-cards does: number and pin encrypted, bound to the row. */
async function storeCard(
  tx: Tx,
  ctx: RequestContext,
  id: string,
  body: { number: string; pin: string },
  buyerId: string | null,
  fingerprint: string,
  outcome: Activated,
): Promise<GiftCardRow> {
  // A stored card is active, so the service refuses it first; this catches a concurrent store.
  const existing = await repo.findGiftCardByFingerprint(tx, ctx.merchantAccountId, fingerprint);
  if (existing) throw giftCardAlreadyStored(existing.id);
  const sealed = await sealGiftCard(tx, ctx, id, body);
  const row = await repo.insertGiftCard(tx, {
    merchant_account_id: ctx.merchantAccountId,
    id,
    buyer_id: buyerId,
    ...cardDigits(body.number),
    fingerprint,
    number_ciphertext: sealed.number.ciphertext,
    number_key_id: sealed.number.keyId,
    pin_ciphertext: sealed.pin.ciphertext,
    pin_key_id: sealed.pin.keyId,
    expiration_date: outcome.expirationDate,
  });
  if (!row) throw new Concurrent('gift-card');
  await recordAudit(tx, ctx, 'created', { type: 'gift-card', id, name: `gift card ${row.last4}` });
  return row;
}
