import { accountLimit, hasScope, withRequestTransaction, type Deps, type RequestContext } from '../../context.ts';
import type { ApiKeyPairRow } from '../../db/schema.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import { AppError, duplicateRecord, fieldRefusal, forbidden, notFound } from '../../errors/app-error.ts';
import { listPage } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit, type AuditAction } from '../audit-logs/audit-logs.service.ts';
import { merchantAccountExists } from '../merchant-accounts/merchant-accounts.service.ts';
import {
  isRoleSlug,
  ROLE_SLUGS,
  type RoleSlug,
  roleId,
  roleSetProblem,
  roleSlugOfId,
  ROLES,
} from '../roles/roles.catalogue.ts';
import * as repo from './api-key-pairs.repo.ts';
import {
  toApiKeyPairResource,
  type ApiKeyPair,
  type CreateApiKeyPairBody,
  type ListApiKeyPairsQuery,
  type UpdateApiKeyPairBody,
} from './api-key-pairs.schemas.ts';
import { describePublicKey, generateEs512KeyPair, PublicKeyError } from './key-material.ts';

/**
 * Who manages key pairs: an API request (limited by its credential, audited) or the operator's CLI,
 * which has database access and so reaches every pair. The CLI writes no audit entry: there is no
 * request or credential to name, and on a fresh database no merchant account to file it under.
 */
interface Caller {
  deps: Deps;
  /** The merchant account the caller is limited to (`accountLimit`), or null for every account. */
  restrictedTo: string | null;
  /** Whether the caller holds a scope (a pair may only be given roles within the caller's own scopes). */
  holds(scope: string): boolean;
  write<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  audit(tx: Tx, action: AuditAction, row: ApiKeyPairRow): Promise<void>;
}

function requestCaller(ctx: RequestContext): Caller {
  return {
    deps: ctx.deps,
    restrictedTo: accountLimit(ctx.principal),
    holds: (scope) => ctx.principal !== null && hasScope(ctx.principal, scope),
    write: (fn) => withRequestTransaction(ctx, fn),
    async audit(tx, action, row) {
      // These routes skip the merchant account check of the auth hook (the resource is
      // instance-wide), yet the entry is filed under the request's account: it must exist.
      if (!(await merchantAccountExists(tx, ctx.merchantAccountId))) {
        throw forbidden(
          `Merchant account ${ctx.merchantAccountId} does not exist or is not accessible with this credential`,
        );
      }
      await recordAudit(tx, ctx, action, { type: 'api-key-pair', id: row.id, name: row.display_name });
    },
  };
}

function operatorCaller(deps: Deps): Caller {
  return {
    deps,
    restrictedTo: null,
    holds: () => true,
    write: (fn) => withTransaction(deps.db, fn),
    audit: async () => undefined,
  };
}

/** A caller limited to one merchant account sees only the pairs limited to that account. */
function visible(caller: Caller, row: ApiKeyPairRow): boolean {
  return caller.restrictedTo === null || row.merchant_account_id === caller.restrictedTo;
}

/** The account a new pair is limited to. A limited caller cannot create a pair that reaches further. */
function limitOf(caller: Caller, requested: string | null | undefined): string | null {
  const only = caller.restrictedTo;
  if (only === null) return requested ?? null;
  if (requested === undefined || requested === only) return only;
  throw forbidden(
    `This credential is limited to merchant account ${only}; it can only create key pairs limited to that account`,
  );
}

/** The slugs of `role_ids`: known roles, a valid set, within the caller's own scopes (403 otherwise). */
function rolesOf(caller: Caller, roleIds: readonly string[] | undefined): string[] | null {
  if (roleIds === undefined) return null;
  const slugs = roleIds.map((id) => roleSlugOfId(id) ?? (id as string));
  const unknown = roleIds.filter((id) => roleSlugOfId(id) === undefined);
  if (unknown.length > 0)
    throw fieldRefusal('body', '/role_ids', `Unknown role ${unknown.join(', ')}; GET /roles lists the roles`);
  const problem = roleSetProblem(slugs);
  if (problem) throw fieldRefusal('body', '/role_ids', problem);
  const missing = [...new Set(slugs.flatMap((slug) => ROLES[slug as keyof typeof ROLES].allow))].filter(
    (scope) => !caller.holds(scope),
  );
  if (missing.length > 0)
    throw forbidden(
      `A key pair may only be given roles within the caller's own scopes; this credential lacks ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}`,
    );
  return slugs;
}

async function keyMaterial(
  publicKey: CreateApiKeyPairBody['public_key'],
): Promise<{ publicJwk: Record<string, string>; thumbprint: string; privateKeyPem: string | null }> {
  if (publicKey === undefined) return generateEs512KeyPair();
  try {
    return { ...(await describePublicKey(publicKey)), privateKeyPem: null };
  } catch (error) {
    if (error instanceof PublicKeyError) throw fieldRefusal('body', '/public_key', error.message);
    throw error;
  }
}

/** The 409 of a key that is registered already. Pairs the caller cannot see, or deleted ones, are not named. */
async function duplicateKey(tx: Tx, caller: Caller, thumbprint: string): Promise<AppError> {
  const existing = await repo.findKeyPairByThumbprint(tx, thumbprint);
  if (existing && existing.deleted_at === null && visible(caller, existing)) {
    return duplicateRecord(existing.id, `This public key is already registered as API key pair ${existing.id}`);
  }
  if (existing && existing.deleted_at !== null && visible(caller, existing)) {
    return new AppError(
      'duplicate_record',
      'This public key belonged to an API key pair that was deleted; a deleted key cannot be registered again. Use a new key',
    );
  }
  return new AppError('duplicate_record', 'This public key is already registered');
}

/** Registers a pair; the private key it may have generated is returned once and never stored. */
async function register(caller: Caller, body: CreateApiKeyPairBody): Promise<ApiKeyPair> {
  const merchantAccountId = limitOf(caller, body.merchant_account_id);
  const roleSlugs = rolesOf(caller, body.role_ids);
  const key = await keyMaterial(body.public_key);
  // The transaction returns the resource without the private key: should the response ever be
  // stored (idempotency), the key would not be stored with it.
  const resource = await caller.write(async (tx) => {
    if (merchantAccountId !== null && !(await merchantAccountExists(tx, merchantAccountId))) {
      throw fieldRefusal('body', '/merchant_account_id', `The merchant account ${merchantAccountId} does not exist`);
    }
    const row = await repo.insertKeyPairIfNew(tx, {
      id: uuidv7(),
      thumbprint: key.thumbprint,
      publicJwk: key.publicJwk,
      displayName: body.display_name,
      merchantAccountId,
      roleSlugs,
    });
    if (!row) throw await duplicateKey(tx, caller, key.thumbprint);
    await caller.audit(tx, 'created', row);
    return toApiKeyPairResource(row);
  });
  return { ...resource, private_key: key.privateKeyPem };
}

async function lockPair(tx: Tx, caller: Caller, idOrKid: string): Promise<ApiKeyPairRow> {
  const row = await repo.findKeyPair(tx, idOrKid, { forUpdate: true });
  if (!row || !visible(caller, row)) throw notFound('API key pair', idOrKid);
  return row;
}

/** The columns a partial update changes; empty when it changes nothing. */
function patchOf(row: ApiKeyPairRow, body: UpdateApiKeyPairBody): repo.KeyPairPatch {
  const patch: repo.KeyPairPatch = {};
  if (body.display_name !== undefined && body.display_name !== row.display_name) patch.display_name = body.display_name;
  if (body.active === false && row.active) Object.assign(patch, { active: false, revoked_at: new Date() });
  if (body.active === true && !row.active) Object.assign(patch, { active: true, revoked_at: null });
  return patch;
}

async function change(caller: Caller, idOrKid: string, body: UpdateApiKeyPairBody): Promise<ApiKeyPair> {
  const resource = await caller.write(async (tx) => {
    const row = await lockPair(tx, caller, idOrKid);
    const patch = patchOf(row, body);
    if (Object.keys(patch).length === 0) return toApiKeyPairResource(row);
    const updated = await repo.updateKeyPair(tx, row.id, patch);
    await caller.audit(tx, 'updated', updated);
    return toApiKeyPairResource(updated);
  });
  // After the commit: a reload before it would cache the old state for the TTL.
  caller.deps.keyPairs.invalidate(resource.kid);
  return resource;
}

async function remove(caller: Caller, idOrKid: string): Promise<void> {
  let kid = '';
  await caller.write(async (tx) => {
    const row = await lockPair(tx, caller, idOrKid);
    const now = new Date();
    const deleted = await repo.updateKeyPair(tx, row.id, {
      active: false,
      deleted_at: now,
      revoked_at: row.revoked_at ?? now,
    });
    await caller.audit(tx, 'deleted', deleted);
    kid = row.thumbprint;
  });
  caller.deps.keyPairs.invalidate(kid);
}

// HTTP operations.

export async function createApiKeyPair(ctx: RequestContext, body: CreateApiKeyPairBody): Promise<ApiKeyPair> {
  return register(requestCaller(ctx), body);
}

export async function listApiKeyPairs(ctx: RequestContext, query: ListApiKeyPairsQuery) {
  const only = accountLimit(ctx.principal);
  return listPage(
    ctx,
    'api-key-pairs',
    query,
    (position, limit) => repo.listKeyPairs(ctx.deps.db, { merchantAccountId: only }, position, limit),
    (row) => toApiKeyPairResource(row),
    (row) => [row.created_at, row.id],
    // An instance-wide list: cursors are bound to the credential's reach, not to a header.
    only ?? '*',
  );
}

export async function getApiKeyPair(ctx: RequestContext, idOrKid: string): Promise<ApiKeyPair> {
  const row = await repo.findKeyPair(ctx.deps.db, idOrKid);
  if (!row || !visible(requestCaller(ctx), row)) throw notFound('API key pair', idOrKid);
  return toApiKeyPairResource(row);
}

export async function updateApiKeyPair(
  ctx: RequestContext,
  idOrKid: string,
  body: UpdateApiKeyPairBody,
): Promise<ApiKeyPair> {
  return change(requestCaller(ctx), idOrKid, body);
}

export async function deleteApiKeyPair(ctx: RequestContext, idOrKid: string): Promise<void> {
  return remove(requestCaller(ctx), idOrKid);
}

// The operator's CLI (`svc keys`) and test helpers.

export interface CreatedKeyPair {
  id: string;
  thumbprint: string;
  privateKeyPem: string;
}

/**
 * Generates and registers an ES512 key pair. The private key is returned once and never stored.
 * `roles` are role slugs (`svc keys create --role`): the pair's tokens get at most their scopes.
 */
export async function createKeyPair(
  deps: Deps,
  input: { displayName: string; merchantAccountId: string | null; roles?: readonly string[] | undefined },
): Promise<CreatedKeyPair> {
  const unknown = (input.roles ?? []).filter((slug) => !isRoleSlug(slug));
  if (unknown.length > 0) throw new Error(`Unknown role ${unknown.join(', ')}; the roles are ${ROLE_SLUGS.join(', ')}`);
  const created = await register(operatorCaller(deps), {
    display_name: input.displayName,
    merchant_account_id: input.merchantAccountId,
    ...(input.roles === undefined ? {} : { role_ids: input.roles.map((slug) => roleId(slug as RoleSlug)) }),
  });
  return { id: created.id, thumbprint: created.kid, privateKeyPem: created.private_key! };
}

/** Every pair that is not deleted, newest first. */
export async function listKeyPairs(deps: Deps): Promise<ApiKeyPair[]> {
  return (await repo.listAllKeyPairs(deps.db)).map((row) => toApiKeyPairResource(row));
}

export async function revokeKeyPair(deps: Deps, idOrKid: string): Promise<ApiKeyPair> {
  return change(operatorCaller(deps), idOrKid, { active: false });
}
