import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import * as buyersRepo from './buyers.repo.ts';
import { canReadPersonalData } from './buyers.service.ts';
import * as repo from './shipping-details.repo.ts';
import {
  shippingDetailsAuditResource,
  toShippingDetailsResource,
  type CreateShippingDetailsBody,
  type ShippingDetails,
  type UpdateShippingDetailsBody,
} from './shipping-details.schemas.ts';

/** The list is a plain `items` list without cursors, so its length is bounded per buyer. */
export const MAX_SHIPPING_DETAILS_PER_BUYER = 100;

async function requireBuyer(db: Executor, ctx: RequestContext, buyerId: string, forUpdate = false): Promise<void> {
  const buyer = await buyersRepo.findBuyer(db, ctx.merchantAccountId, buyerId, { forUpdate });
  if (!buyer) throw notFound('buyer', buyerId);
}

/** 404 naming the buyer when the buyer is unknown, else naming the shipping details. */
async function missing(db: Executor, ctx: RequestContext, buyerId: string, id: string): Promise<AppError> {
  await requireBuyer(db, ctx, buyerId);
  return notFound('shipping details', id);
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export async function addBuyerShippingDetails(
  ctx: RequestContext,
  buyerId: string,
  body: CreateShippingDetailsBody,
): Promise<ShippingDetails> {
  const merchantAccountId = ctx.merchantAccountId;
  return withRequestTransaction(ctx, async (tx) => {
    // Locking the buyer serializes adds (the bound below) with each other and with the buyer's deletion.
    await requireBuyer(tx, ctx, buyerId, true);
    if ((await repo.countShippingDetails(tx, merchantAccountId, buyerId)) >= MAX_SHIPPING_DETAILS_PER_BUYER) {
      throw new AppError(
        'bad_request',
        `A buyer holds at most ${MAX_SHIPPING_DETAILS_PER_BUYER} shipping details; delete some before adding more`,
      );
    }
    const row = await repo.insertShippingDetails(tx, {
      merchant_account_id: merchantAccountId,
      id: uuidv7(),
      buyer_id: buyerId,
      first_name: body.first_name ?? null,
      last_name: body.last_name ?? null,
      email_address: body.email_address ?? null,
      phone_number: body.phone_number ?? null,
      address: json(body.address),
    });
    await recordAudit(tx, ctx, 'created', shippingDetailsAuditResource(row));
    return toShippingDetailsResource(row, canReadPersonalData(ctx));
  });
}

export async function listBuyerShippingDetails(
  ctx: RequestContext,
  buyerId: string,
): Promise<{ items: ShippingDetails[] }> {
  const db = ctx.deps.db;
  await requireBuyer(db, ctx, buyerId);
  const reveal = canReadPersonalData(ctx);
  const rows = await repo.listShippingDetails(db, ctx.merchantAccountId, buyerId);
  return { items: rows.map((row) => toShippingDetailsResource(row, reveal)) };
}

export async function getBuyerShippingDetails(
  ctx: RequestContext,
  buyerId: string,
  id: string,
): Promise<ShippingDetails> {
  const db = ctx.deps.db;
  const row = await repo.findShippingDetails(db, ctx.merchantAccountId, buyerId, id);
  if (!row) throw await missing(db, ctx, buyerId, id);
  return toShippingDetailsResource(row, canReadPersonalData(ctx));
}

/** Only the fields sent: an absent field keeps its value, null clears it, address is replaced whole. */
function toPatch(body: UpdateShippingDetailsBody): repo.ShippingDetailsPatch {
  const { address, ...fields } = body;
  const patch: repo.ShippingDetailsPatch = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  );
  if (address !== undefined) patch.address = json(address);
  return patch;
}

export async function updateBuyerShippingDetails(
  ctx: RequestContext,
  buyerId: string,
  id: string,
  body: UpdateShippingDetailsBody,
): Promise<ShippingDetails> {
  const merchantAccountId = ctx.merchantAccountId;
  const patch = toPatch(body);
  return withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findShippingDetails(tx, merchantAccountId, buyerId, id, { forUpdate: true });
    if (!current) throw await missing(tx, ctx, buyerId, id);
    const row = (await repo.updateShippingDetails(tx, merchantAccountId, buyerId, id, patch))!;
    await recordAudit(tx, ctx, 'updated', shippingDetailsAuditResource(row));
    return toShippingDetailsResource(row, canReadPersonalData(ctx));
  });
}

export async function deleteBuyerShippingDetails(ctx: RequestContext, buyerId: string, id: string): Promise<void> {
  const merchantAccountId = ctx.merchantAccountId;
  await withRequestTransaction(ctx, async (tx) => {
    const current = await repo.findShippingDetails(tx, merchantAccountId, buyerId, id, { forUpdate: true });
    if (!current) throw await missing(tx, ctx, buyerId, id);
    await repo.deleteShippingDetails(tx, merchantAccountId, buyerId, id);
    await recordAudit(tx, ctx, 'deleted', shippingDetailsAuditResource(current));
  });
}
