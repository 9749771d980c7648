import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { duplicateRecord, forbidden, notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import * as repo from './merchant-accounts.repo.ts';
import {
  toMerchantAccountResource,
  type CreateMerchantAccountBody,
  type ListMerchantAccountsQuery,
  type MerchantAccount,
} from './merchant-accounts.schemas.ts';

function restriction(ctx: RequestContext): string | null {
  return ctx.principal?.restrictedTo ?? null;
}

export async function createMerchantAccount(ctx: RequestContext, body: CreateMerchantAccountBody): Promise<MerchantAccount> {
  if (restriction(ctx) !== null) throw forbidden('A credential limited to one merchant account cannot create merchant accounts');
  return withRequestTransaction(ctx, async (tx) => {
    const row = await repo.insertMerchantAccount(tx, { ...body, loon_accepted_schemes: body.loon_accepted_schemes ?? null });
    if (!row) throw duplicateRecord(body.id, `A merchant account with the id ${body.id} already exists`);
    return toMerchantAccountResource(row);
  });
}

export async function getMerchantAccount(ctx: RequestContext, id: string): Promise<MerchantAccount> {
  const only = restriction(ctx);
  const row = only !== null && only !== id ? undefined : await repo.findMerchantAccount(ctx.deps.db, id);
  if (!row) throw notFound('merchant account', id);
  return toMerchantAccountResource(row);
}

export async function listMerchantAccounts(ctx: RequestContext, query: ListMerchantAccountsQuery) {
  const filter = { search: query.search, onlyId: restriction(ctx) };
  return listPage(
    ctx,
    `merchant-accounts:${query.search ?? ''}`,
    query,
    (position, limit) => repo.listMerchantAccounts(ctx.deps.db, filter, position, limit),
    toMerchantAccountResource,
    (row) => [row.created_at, row.id],
  );
}
