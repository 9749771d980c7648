import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { VaultForwardAuthenticationRow } from '../../db/schema-vault-forward.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { creatorOf } from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import { checkFieldValues, mergeFieldList, openFieldValues, sealFieldValues } from './authentication-fields.ts';
import * as repo from './vault-forward-configs.repo.ts';
import { configOrNotFound } from './vault-forward-configs.service.ts';
import {
  AUTHENTICATION_TYPE,
  LIMITS,
  toAuthenticationResource,
  type Authentication,
  type CreateAuthenticationBody,
  type UpdateAuthenticationBody,
} from './vault-forward-configs.schemas.ts';

/**
 * Authentication methods of a vault forward config. Secret field values are sealed by the vault
 * bound to their row and key, opened only to merge an update or for one forward, and never
 * returned; audit entries name the method, never a value.
 */

const RESOURCE = 'vault forward authentication';
const auditResource = (row: VaultForwardAuthenticationRow) => ({
  type: AUTHENTICATION_TYPE,
  id: row.id,
  name: `${row.display_name} (${row.kind})`,
});

export async function listAuthentications(ctx: RequestContext, configId: string): Promise<{ items: Authentication[] }> {
  await configOrNotFound(ctx.deps.db, ctx, configId);
  return {
    items: (await repo.authenticationsOf(ctx.deps.db, ctx.merchantAccountId, [configId])).map(toAuthenticationResource),
  };
}

export async function createAuthentication(
  ctx: RequestContext,
  configId: string,
  body: CreateAuthenticationBody,
): Promise<Authentication> {
  const values = mergeFieldList(body.kind, {}, body.fields);
  const label = checkFieldValues(body.kind, values);
  const id = uuidv7();
  return withRequestTransaction(ctx, async (tx) => {
    // The config row is locked: its count of methods cannot pass the bound between two requests.
    await configOrNotFound(tx, ctx, configId, { forUpdate: true });
    const existing = await repo.authenticationsOf(tx, ctx.merchantAccountId, [configId]);
    if (existing.length >= LIMITS.authenticationsPerConfig) {
      throw new AppError(
        'bad_request',
        `A config holds at most ${LIMITS.authenticationsPerConfig} authentication methods; delete one it no longer needs`,
      );
    }
    const row = await repo.insertAuthentication(tx, {
      merchant_account_id: ctx.merchantAccountId,
      id,
      config_id: configId,
      kind: body.kind,
      display_name: body.display_name,
      label,
      ...(await sealFieldValues(tx, ctx.deps, ctx.merchantAccountId, id, body.kind, values)),
      creator: creatorOf(ctx),
    });
    await recordAudit(tx, ctx, 'created', auditResource(row));
    return toAuthenticationResource(row);
  });
}

async function authenticationOrNotFound(
  db: Executor,
  ctx: RequestContext,
  configId: string,
  id: string,
  forUpdate = false,
): Promise<VaultForwardAuthenticationRow> {
  const row = await repo.findAuthentication(db, ctx.merchantAccountId, configId, id, { forUpdate });
  if (!row) throw notFound(RESOURCE, id);
  return row;
}

export async function getAuthentication(ctx: RequestContext, configId: string, id: string): Promise<Authentication> {
  return toAuthenticationResource(await authenticationOrNotFound(ctx.deps.db, ctx, configId, id));
}

/** Fields are merged key by key into the stored values (opened under the row lock), checked again as a whole and sealed again. */
export async function updateAuthentication(
  ctx: RequestContext,
  configId: string,
  id: string,
  body: UpdateAuthenticationBody,
): Promise<Authentication> {
  return withRequestTransaction(ctx, async (tx) => {
    const current = await authenticationOrNotFound(tx, ctx, configId, id, true);
    const patch: Parameters<typeof repo.updateAuthentication>[3] = {};
    if (body.display_name !== undefined) patch.display_name = body.display_name;
    if (body.fields !== undefined) {
      const values = mergeFieldList(current.kind, await openFieldValues(tx, ctx.deps, current), body.fields);
      patch.label = checkFieldValues(current.kind, values);
      Object.assign(patch, await sealFieldValues(tx, ctx.deps, ctx.merchantAccountId, id, current.kind, values));
    }
    const row = await repo.updateAuthentication(tx, ctx.merchantAccountId, id, patch);
    await recordAudit(tx, ctx, 'updated', auditResource(row));
    return toAuthenticationResource(row);
  });
}

export async function deleteAuthentication(ctx: RequestContext, configId: string, id: string): Promise<void> {
  await withRequestTransaction(ctx, async (tx) => {
    const row = await authenticationOrNotFound(tx, ctx, configId, id, true);
    await repo.deleteAuthentication(tx, ctx.merchantAccountId, id);
    await recordAudit(tx, ctx, 'deleted', auditResource(row));
  });
}
