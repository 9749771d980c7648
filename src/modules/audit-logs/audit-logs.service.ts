import type { RequestContext } from '../../context.ts';
import type { AuditLogRow } from '../../db/schema.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { listPage } from '../../http/pagination.ts';
import * as repo from './audit-logs.repo.ts';
import { toAuditLogResource, type ListAuditLogsQuery } from './audit-logs.schemas.ts';

export type AuditAction = AuditLogRow['action'];

export interface AuditedResource {
  type: string;
  id: string;
  name: string;
}

/** Who made a change: an API key pair, a dashboard user (with its e-mail address) or the platform. */
export interface Actor {
  userId: string | null;
  name: string;
  email?: string | null;
  operationId: string | null;
  requestId: string | null;
}

function entryQuery(
  db: Executor,
  merchantAccountId: string,
  actor: Actor,
  action: AuditAction,
  resource: AuditedResource,
) {
  return repo.insertAuditLogQuery(db, {
    merchant_account_id: merchantAccountId,
    id: uuidv7(),
    action,
    resource_type: resource.type,
    resource_id: resource.id,
    resource_name: resource.name,
    user_id: actor.userId,
    user_name: actor.name,
    user_email_address: actor.email ?? null,
    operation_id: actor.operationId,
    request_id: actor.requestId,
  });
}

async function writeEntry(
  tx: Tx,
  merchantAccountId: string,
  actor: Actor,
  action: AuditAction,
  resource: AuditedResource,
): Promise<void> {
  await entryQuery(tx, merchantAccountId, actor, action, resource).execute();
}

const requestActor = (ctx: RequestContext): Actor => {
  const principal = ctx.principal;
  if (principal?.user)
    return {
      userId: principal.user.id,
      name: principal.user.displayName,
      email: principal.user.email,
      operationId: ctx.operationId,
      requestId: ctx.requestId,
    };
  return {
    userId: principal?.keyPairId ?? null,
    name: principal ? `API key ${principal.keyPairName}` : 'anonymous',
    operationId: ctx.operationId,
    requestId: ctx.requestId,
  };
};

/**
 * Writes the audit entry of a change, in the transaction of the change: no change without its
 * entry, no entry without its change. The actor is the credential of the request.
 */
export async function recordAudit(
  tx: Tx,
  ctx: RequestContext,
  action: AuditAction,
  resource: AuditedResource,
  merchantAccountId = ctx.merchantAccountId,
): Promise<void> {
  await writeEntry(tx, merchantAccountId, requestActor(ctx), action, resource);
}

/** `recordAudit`'s insert, for a caller that runs it with its other writes (src/db/write-batch.ts). */
export function auditQuery(tx: Executor, ctx: RequestContext, action: AuditAction, resource: AuditedResource) {
  return entryQuery(tx, ctx.merchantAccountId, requestActor(ctx), action, resource);
}

/** Who made a change that no request made: a background job of the platform. */
export interface SystemActor {
  /** Shown as the actor's name, e.g. `System (account updater)`. */
  name: string;
  /** The job name (in `operation_id`) and the job id (in `request_id`), to trace the entry. */
  jobName: string;
  jobId: string;
}

/** Like `recordAudit`, for changes made by the platform itself: no user, the system as actor. */
export async function recordSystemAudit(
  tx: Tx,
  merchantAccountId: string,
  actor: SystemActor,
  action: AuditAction,
  resource: AuditedResource,
): Promise<void> {
  await writeEntry(
    tx,
    merchantAccountId,
    { userId: null, name: actor.name, operationId: actor.jobName, requestId: actor.jobId },
    action,
    resource,
  );
}

/**
 * An entry in each of `merchantAccountIds` with `actor` (a dashboard user signing in or out, or
 * setting up its password): such an event belongs to no one merchant account, so every account the
 * user may act on gets it, and that account's audit log shows who entered it.
 */
export async function recordActorAudit(
  tx: Tx,
  merchantAccountIds: readonly string[],
  actor: Actor,
  action: AuditAction,
  resource: AuditedResource,
): Promise<void> {
  // In account order: a stable order of entries. (Decision 0141's appends locked each account to
  // commit, which this order kept free of deadlocks; since decision 0145 an append takes no lock.)
  for (const merchantAccountId of [...merchantAccountIds].sort())
    await writeEntry(tx, merchantAccountId, actor, action, resource);
}

export async function listAuditLogs(ctx: RequestContext, query: ListAuditLogsQuery) {
  const filter = {
    action: query.action ?? undefined,
    userId: query.user_id ?? undefined,
    resourceType: query.resource_type ?? undefined,
  };
  return listPage(
    ctx,
    `audit-logs:${filter.action ?? ''}:${filter.userId ?? ''}:${filter.resourceType ?? ''}`,
    query,
    (position, limit) => repo.listAuditLogs(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    toAuditLogResource,
    (row) => [row.created_at, row.id],
  );
}
