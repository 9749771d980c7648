import type { RequestContext } from '../../context.ts';
import { notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { canReadPersonalData } from '../buyers/buyers.service.ts';
import { toPayoutResource } from './payout.resource.ts';
import type { ListPayoutsQuery, Payout } from './payouts.schemas.ts';
import * as repo from './payouts.repo.ts';

/** `GET /payouts/{payout_id}`. */
export async function getPayout(ctx: RequestContext, id: string): Promise<Payout> {
  const row = await repo.findPayout(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('payout', id);
  return toPayoutResource(row, canReadPersonalData(ctx));
}

const given = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;
const date = (value: string | null | undefined) => (given(value) ? new Date(value) : undefined);

export function toFilter(query: ListPayoutsQuery): repo.PayoutFilter {
  return {
    createdAt: { gte: date(query.created_at_gte), lte: date(query.created_at_lte) },
    updatedAt: { gte: date(query.updated_at_gte), lte: date(query.updated_at_lte) },
    ...(given(query.external_identifier) ? { externalIdentifier: query.external_identifier } : {}),
    ...(given(query.payment_service_payout_id) ? { paymentServicePayoutId: query.payment_service_payout_id } : {}),
    ...(given(query.status) ? { statuses: query.status } : {}),
  };
}

/**
 * The list name the cursor is bound to: every filter given, in a canonical form (statuses sorted,
 * instants as UTC ISO strings), so a cursor replays only under the same filters.
 */
export function listName(query: ListPayoutsQuery): string {
  const f = toFilter(query);
  const iso = (d: Date | undefined) => d?.toISOString() ?? null;
  return `payouts:${JSON.stringify([iso(f.createdAt.gte), iso(f.createdAt.lte), iso(f.updatedAt.gte), iso(f.updatedAt.lte), f.externalIdentifier ?? null, f.paymentServicePayoutId ?? null, f.statuses ? [...new Set(f.statuses)].sort() : null])}`;
}

/** `GET /payouts`: newest first, keyset on (created_at, id). */
export async function listPayouts(ctx: RequestContext, query: ListPayoutsQuery): Promise<ListEnvelope<Payout>> {
  const reveal = canReadPersonalData(ctx);
  return listPage(
    ctx,
    listName(query),
    query,
    (position, limit) => repo.listPayouts(ctx.deps.db, ctx.merchantAccountId, toFilter(query), position, limit),
    (row) => toPayoutResource(row, reveal),
    (row) => [row.created_at, row.id],
  );
}
