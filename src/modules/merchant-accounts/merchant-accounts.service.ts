import { sql, type RawBuilder } from 'kysely';
import { accountLimit, withRequestTransaction, type RequestContext } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, duplicateRecord, forbidden, notFound } from '../../errors/app-error.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { listPage } from '../../http/pagination.ts';
import type { MerchantAccountPatch } from '../../db/schema.ts';
import { SECRET_FIELDS, secretColumns, withoutSecrets } from './merchant-account-secrets.ts';
import * as repo from './merchant-accounts.repo.ts';
import {
  toMerchantAccountResource,
  type CreateMerchantAccountBody,
  type UpdateMerchantAccountBody,
  type ListMerchantAccountsQuery,
  type MerchantAccount,
} from './merchant-accounts.schemas.ts';

function restriction(ctx: RequestContext): string | null {
  return accountLimit(ctx.principal);
}

const LOON_FIELDS = ['loon_client_key', 'loon_secret_key', 'loon_accepted_schemes'] as const;

/** The three loon fields are set or nulled together. */
function checkLoonFields(body: UpdateMerchantAccountBody): void {
  const sent = LOON_FIELDS.filter((field) => body[field] !== undefined);
  if (sent.length === 0) return;
  const complete =
    sent.length === 3 && (LOON_FIELDS.every((f) => body[f] === null) || LOON_FIELDS.every((f) => body[f] !== null));
  if (!complete) {
    throw new AppError(
      'bad_request',
      'loon_client_key, loon_secret_key and loon_accepted_schemes must be set together or nulled together',
      {
        details: LOON_FIELDS.filter((f) => body[f] === undefined || body[f] === null).map((f) => ({
          location: 'body' as const,
          pointer: `/${f}`,
          message: 'Set or null together with the other loon fields',
          type: 'value_error',
        })),
      },
    );
  }
}

export async function createMerchantAccount(
  ctx: RequestContext,
  body: CreateMerchantAccountBody,
): Promise<MerchantAccount> {
  if (restriction(ctx) !== null)
    throw forbidden('A credential limited to one merchant account cannot create merchant accounts');
  checkLoonFields(body);
  return withRequestTransaction(ctx, async (tx) => {
    const inserted = await repo.insertMerchantAccount(tx, {
      ...withoutSecrets(body),
      loon_accepted_schemes: body.loon_accepted_schemes ?? null,
    });
    if (!inserted) throw duplicateRecord(body.id, `A merchant account with the id ${body.id} already exists`);
    // Sealed once the row exists: the account's data key belongs to it.
    const secrets = await secretColumns(tx, ctx.deps, inserted, body);
    const row = (secrets && (await repo.setSecretColumns(tx, inserted.id, secrets))) || inserted;
    await recordAudit(tx, ctx, 'created', { type: 'merchant-account', id: row.id, name: row.display_name }, row.id);
    return toMerchantAccountResource(row);
  });
}

/** Partial update: a field that is not sent keeps its value; null clears a nullable field. */
export async function updateMerchantAccount(
  ctx: RequestContext,
  id: string,
  body: UpdateMerchantAccountBody,
): Promise<MerchantAccount> {
  const only = restriction(ctx);
  if (only !== null && only !== id) throw notFound('merchant account', id);
  checkLoonFields(body);
  const { display_name, ...rest } = body;
  const patch = { ...withoutSecrets(rest), ...(display_name ? { display_name } : {}) };
  return withRequestTransaction(ctx, async (tx) => {
    let secrets: MerchantAccountPatch | null = null;
    if (SECRET_FIELDS.some((field) => body[field] !== undefined)) {
      const current = await repo.findMerchantAccount(tx, id, { forUpdate: true });
      if (!current) throw notFound('merchant account', id);
      secrets = await secretColumns(tx, ctx.deps, current, body);
    }
    const row = await repo.updateMerchantAccount(tx, id, { ...patch, ...secrets });
    if (!row) throw notFound('merchant account', id);
    await recordAudit(tx, ctx, 'updated', { type: 'merchant-account', id: row.id, name: row.display_name }, row.id);
    return toMerchantAccountResource(row);
  });
}

/** For other modules: whether an account exists, read in their transaction (or pool). */
export async function merchantAccountExists(db: Executor, id: string): Promise<boolean> {
  return (await repo.findMerchantAccount(db, id)) !== undefined;
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
    // An instance-wide list: cursors are bound to the credential's reach, not to a header.
    filter.onlyId ?? '*',
  );
}

/**
 * The capture limit of an authorization on a connector that supports over-capture: the authorized
 * amount plus the merchant account's over-capture allowance, in minor units. When both an amount and
 * a percentage (rounded down) are set, the smaller allowance applies. An SQL expression, so the
 * update that records the authorization reads the account's settings in the same statement.
 */
export function overCaptureLimit(merchantAccountId: string, authorizedAmount: number): RawBuilder<number> {
  return sql<number>`${authorizedAmount}::bigint + coalesce((select least(ma.over_capture_amount, (${authorizedAmount}::bigint * ma.over_capture_percentage) / 100) from merchant_accounts ma where ma.id = ${merchantAccountId}), 0)`;
}
