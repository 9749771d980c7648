import type { RequestContext } from '../../context.ts';
import type { BuyerRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { notFound } from '../../errors/app-error.ts';
import * as buyersRepo from './buyers.repo.ts';
import * as shippingRepo from './shipping-details.repo.ts';
import type { BuyerReference } from './buyers.service.ts';

/**
 * For modules that keep a copy of a buyer with their own record (transactions): the stored rows,
 * unmasked. The copy is masked where it is shown, by the module that shows it.
 */
export async function findBuyerRow(db: Executor, ctx: RequestContext, reference: BuyerReference): Promise<BuyerRow> {
  const row =
    'id' in reference
      ? await buyersRepo.findBuyer(db, ctx.merchantAccountId, reference.id)
      : await buyersRepo.findBuyerByExternalIdentifier(db, ctx.merchantAccountId, reference.externalIdentifier);
  if (!row)
    throw notFound(
      'buyer',
      'id' in reference ? reference.id : `with the external_identifier ${reference.externalIdentifier}`,
    );
  return row;
}

/** A buyer's stored shipping details as a plain object (the transaction keeps a copy); 404 when not the buyer's. */
export async function shippingDetailsSnapshot(
  db: Executor,
  ctx: RequestContext,
  buyerId: string,
  id: string,
): Promise<Record<string, unknown>> {
  const row = await shippingRepo.findShippingDetails(db, ctx.merchantAccountId, buyerId, id);
  if (!row) throw notFound('shipping details', id);
  return {
    id: row.id,
    buyer_id: row.buyer_id,
    first_name: row.first_name,
    last_name: row.last_name,
    email_address: row.email_address,
    phone_number: row.phone_number,
    address: row.address,
  };
}
