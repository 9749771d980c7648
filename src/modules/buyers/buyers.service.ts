import { hasScope, withRequestTransaction, type RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { isUniqueViolation } from '../../errors/pg-errors.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import * as repo from './buyers.repo.ts';
import {
  buyerAuditResource,
  toBuyerResource,
  type Buyer,
  type CreateBuyerBody,
  type ListBuyersQuery,
  type UpdateBuyerBody,
} from './buyers.schemas.ts';
import { PII_SCOPE } from './pii-mask.ts';
import * as shippingRepo from './shipping-details.repo.ts';
import { shippingDetailsAuditResource } from './shipping-details.schemas.ts';

/**
 * Whether the caller sees buyers' personal data in full (scope `buyers.billing-details.read`, or
 * `*.read`). Every module returning buyer data decides with this and masks with `pii-mask.ts`.
 */
export function canReadPersonalData(ctx: RequestContext): boolean {
  return ctx.principal !== null && hasScope(ctx.principal, PII_SCOPE);
}

function duplicate(externalIdentifier: string, existingId: string | undefined): AppError {
  return new AppError('duplicate_record', `A buyer with the external_identifier ${externalIdentifier} already exists`, {
    ...(existingId === undefined ? {} : { resourceId: existingId }),
  });
}

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export async function addBuyer(ctx: RequestContext, body: CreateBuyerBody): Promise<Buyer> {
  const merchantAccountId = ctx.merchantAccountId;
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertBuyer(tx, {
      merchant_account_id: merchantAccountId,
      id: uuidv7(),
      display_name: body.display_name ?? null,
      external_identifier: body.external_identifier ?? null,
      account_number: body.account_number ?? null,
      billing_details: json(body.billing_details),
    });
    if (!row) {
      // The insert waited for any concurrent holder of the identifier, so the holder is visible now.
      const externalIdentifier = body.external_identifier ?? '';
      throw duplicate(
        externalIdentifier,
        (await repo.findBuyerByExternalIdentifier(tx, merchantAccountId, externalIdentifier))?.id,
      );
    }
    await recordAudit(tx, ctx, 'created', buyerAuditResource(row));
    return toBuyerResource(row, canReadPersonalData(ctx));
  });
}

export async function listBuyers(ctx: RequestContext, query: ListBuyersQuery): Promise<ListEnvelope<Buyer>> {
  const filter: repo.BuyerFilter = {
    search: query.search || undefined,
    externalIdentifier: query.external_identifier || undefined,
  };
  const reveal = canReadPersonalData(ctx);
  return listPage(
    ctx,
    // Every filter value is part of the list name: a cursor of one search is refused by another.
    `buyers:${JSON.stringify([filter.search ?? null, filter.externalIdentifier ?? null])}`,
    query,
    (position, limit) => repo.listBuyers(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    (row) => toBuyerResource(row, reveal),
    (row) => [row.created_at, row.id],
  );
}

export async function getBuyer(ctx: RequestContext, id: string): Promise<Buyer> {
  const row = await repo.findBuyer(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('buyer', id);
  return toBuyerResource(row, canReadPersonalData(ctx));
}

/** Only the fields sent: an absent field keeps its value, null clears it, billing_details is replaced whole. */
function toPatch(body: UpdateBuyerBody): repo.BuyerPatch {
  const { billing_details, ...fields } = body;
  const patch: repo.BuyerPatch = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  if (billing_details !== undefined) patch.billing_details = json(billing_details);
  return patch;
}

export async function updateBuyer(ctx: RequestContext, id: string, body: UpdateBuyerBody): Promise<Buyer> {
  const merchantAccountId = ctx.merchantAccountId;
  const patch = toPatch(body);
  const wanted = typeof patch.external_identifier === 'string' ? patch.external_identifier : null;
  try {
    return await withRequestTransaction(ctx, async (tx) => {
      const current = await repo.findBuyer(tx, merchantAccountId, id, { forUpdate: true });
      if (!current) throw notFound('buyer', id);
      if (wanted !== null && wanted !== current.external_identifier) {
        const other = await repo.findBuyerByExternalIdentifier(tx, merchantAccountId, wanted, id);
        if (other) throw duplicate(wanted, other.id);
      }
      const row = (await repo.updateBuyer(tx, merchantAccountId, id, patch))!;
      await recordAudit(tx, ctx, 'updated', buyerAuditResource(row));
      return toBuyerResource(row, canReadPersonalData(ctx));
    });
  } catch (error) {
    // A concurrent write took the identifier between the check and the update.
    if (wanted === null || !isUniqueViolation(error, repo.EXTERNAL_IDENTIFIER_INDEX)) throw error;
    throw duplicate(wanted, (await repo.findBuyerByExternalIdentifier(ctx.deps.db, merchantAccountId, wanted, id))?.id);
  }
}

/** Deletes the buyer and its shipping details, each with its own audit entry. */
export async function deleteBuyer(ctx: RequestContext, id: string): Promise<void> {
  const merchantAccountId = ctx.merchantAccountId;
  await withRequestTransaction(ctx, async (tx) => {
    // Locked first: adding shipping details locks the buyer too, so none can appear mid-way.
    const current = await repo.findBuyer(tx, merchantAccountId, id, { forUpdate: true });
    if (!current) throw notFound('buyer', id);
    for (const removed of await shippingRepo.deleteShippingDetailsOfBuyer(tx, merchantAccountId, id)) {
      await recordAudit(tx, ctx, 'deleted', shippingDetailsAuditResource(removed));
    }
    await repo.deleteBuyer(tx, merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', buyerAuditResource(current));
  });
}

/** How other modules name a stored buyer: by id or by the merchant's external identifier. */
export type BuyerReference = { id: string } | { externalIdentifier: string };

/**
 * For other modules (payment methods, transactions, gift cards): the buyer a request refers to, in
 * the request's merchant account, as a resource masked for the caller. An unknown buyer is 404,
 * or null with `missingIsNull` (a list filtered by an unknown buyer is simply empty).
 */
export async function resolveBuyerReference(
  db: Executor,
  ctx: RequestContext,
  reference: BuyerReference,
  options: { missingIsNull?: boolean } = {},
): Promise<Buyer | null> {
  const row =
    'id' in reference
      ? await repo.findBuyer(db, ctx.merchantAccountId, reference.id)
      : await repo.findBuyerByExternalIdentifier(db, ctx.merchantAccountId, reference.externalIdentifier);
  if (row) return toBuyerResource(row, canReadPersonalData(ctx));
  if (options.missingIsNull) return null;
  throw notFound(
    'buyer',
    'id' in reference ? reference.id : `with the external_identifier ${reference.externalIdentifier}`,
  );
}

/** For other modules: the buyers of the request's merchant account among `ids`, masked for the caller, in one query. */
export async function buyerResourcesByIds(
  db: Executor,
  ctx: RequestContext,
  ids: readonly string[],
): Promise<Map<string, Buyer>> {
  const reveal = canReadPersonalData(ctx);
  const rows = await repo.findBuyersByIds(db, ctx.merchantAccountId, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, toBuyerResource(row, reveal)]));
}
