import { withRequestTransaction, type Deps, type RequestContext } from '../../context.ts';
import type { WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import { fieldRefusal, notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { privateTargetsPolicy, urlFormProblem } from '../../lib/url-safety.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import {
  generateSecret,
  openAuthentication,
  openSecrets,
  ROTATION_GRACE_MS,
  sealAuthentication,
  sealSecret,
} from './webhook-secrets.ts';
import * as repo from './webhook-subscriptions.repo.ts';
import {
  toWebhookSubscriptionResource,
  webhookSubscriptionAuditResource,
  type CreateWebhookSubscriptionBody,
  type ListWebhookSubscriptionsQuery,
  type UpdateWebhookSubscriptionBody,
  type WebhookSubscription,
} from './webhook-subscriptions.schemas.ts';

export type { WebhookSubscriptionRow };
export { ROTATION_GRACE_MS };

const RESOURCE = 'webhook subscription';

/** 400 naming /url when the URL may not receive webhooks under this instance's rules (form only; delivery re-checks with DNS). */
function assertUrlAllowed(deps: Deps, url: string): void {
  const problem = urlFormProblem(
    url,
    privateTargetsPolicy(
      deps.config.environment === 'production',
      deps.config.webhookAllowPrivateUrls,
      'WEBHOOK_ALLOW_PRIVATE_URLS',
    ),
  );
  if (problem) throw fieldRefusal('body', '/url', problem);
}

/** The key pair that makes the request; its name is shown as is (no e-mail: key pairs have none). */
export function creatorOf(ctx: RequestContext): string | null {
  const principal = ctx.principal;
  return principal
    ? JSON.stringify({
        id: principal.keyPairId,
        name: principal.keyPairName,
        email_address: principal.user?.email ?? null,
      })
    : null;
}

/**
 * Runs a write of the account's subscriptions, then forgets this process's cached active ones at
 * once (other processes hear of it through the change feed). Also when the write failed: a commit
 * whose answer was lost may still have happened.
 */
async function changingSubscriptions<T>(ctx: RequestContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    ctx.deps.readCaches.webhookSubscriptions.invalidate(ctx.merchantAccountId);
  }
}

export async function createWebhookSubscription(
  ctx: RequestContext,
  body: CreateWebhookSubscriptionBody,
): Promise<WebhookSubscription> {
  assertUrlAllowed(ctx.deps, body.url);
  const merchantAccountId = ctx.merchantAccountId;
  const id = uuidv7();
  const secret = generateSecret();
  return changingSubscriptions(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const row = await repo.insertSubscription(tx, {
        merchant_account_id: merchantAccountId,
        id,
        url: body.url,
        active: body.active ?? true,
        ...(await sealSecret(tx, ctx.deps, merchantAccountId, id, secret)),
        ...(await sealAuthentication(tx, ctx.deps, merchantAccountId, id, body.authentication ?? null)),
        creator: creatorOf(ctx),
      });
      await recordAudit(tx, ctx, 'created', webhookSubscriptionAuditResource(row));
      return toWebhookSubscriptionResource(row, { secret });
    }),
  );
}

export async function listWebhookSubscriptions(
  ctx: RequestContext,
  query: ListWebhookSubscriptionsQuery,
): Promise<ListEnvelope<WebhookSubscription>> {
  const now = new Date();
  return listPage(
    ctx,
    'webhook-subscriptions',
    query,
    (position, limit) => repo.listSubscriptions(ctx.deps.db, ctx.merchantAccountId, position, limit),
    (row) => toWebhookSubscriptionResource(row, { now }),
    (row) => [row.created_at, row.id],
  );
}

export async function getWebhookSubscription(ctx: RequestContext, id: string): Promise<WebhookSubscription> {
  const row = await repo.findSubscription(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound(RESOURCE, id);
  return toWebhookSubscriptionResource(row);
}

async function lockOrNotFound(tx: Tx, merchantAccountId: string, id: string): Promise<WebhookSubscriptionRow> {
  const row = await repo.findSubscription(tx, merchantAccountId, id, { forUpdate: true });
  if (!row) throw notFound(RESOURCE, id);
  return row;
}

export async function updateWebhookSubscription(
  ctx: RequestContext,
  id: string,
  body: UpdateWebhookSubscriptionBody,
): Promise<WebhookSubscription> {
  if (body.url !== undefined) assertUrlAllowed(ctx.deps, body.url);
  const merchantAccountId = ctx.merchantAccountId;
  return changingSubscriptions(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      await lockOrNotFound(tx, merchantAccountId, id);
      const patch: repo.WebhookSubscriptionPatch = {};
      if (body.url !== undefined) patch.url = body.url;
      if (body.active !== undefined) patch.active = body.active;
      if (body.authentication !== undefined)
        Object.assign(patch, await sealAuthentication(tx, ctx.deps, merchantAccountId, id, body.authentication));
      const row = await repo.updateSubscription(tx, merchantAccountId, id, patch);
      await recordAudit(tx, ctx, 'updated', webhookSubscriptionAuditResource(row));
      return toWebhookSubscriptionResource(row);
    }),
  );
}

/**
 * Hard delete: the subscription, its deliveries and their attempts are removed in one statement
 * (ON DELETE CASCADE), so no later delivery attempt finds anything to send. The audit entry stays.
 */
export async function deleteWebhookSubscription(ctx: RequestContext, id: string): Promise<void> {
  const merchantAccountId = ctx.merchantAccountId;
  await changingSubscriptions(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const row = await lockOrNotFound(tx, merchantAccountId, id);
      await repo.deleteSubscription(tx, merchantAccountId, id);
      await recordAudit(tx, ctx, 'deleted', webhookSubscriptionAuditResource(row));
    }),
  );
}

/**
 * A new current secret; the one it replaces stays valid for ROTATION_GRACE_MS. A rotation during
 * a rotation drops the older previous secret: only the secret just replaced stays valid.
 */
export async function rotateWebhookSubscriptionSecret(ctx: RequestContext, id: string): Promise<WebhookSubscription> {
  const merchantAccountId = ctx.merchantAccountId;
  const secret = generateSecret();
  return changingSubscriptions(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const current = await lockOrNotFound(tx, merchantAccountId, id);
      const now = new Date();
      const row = await repo.updateSubscription(tx, merchantAccountId, id, {
        previous_secret_ciphertext: current.secret_ciphertext,
        previous_secret_key_id: current.secret_key_id,
        previous_secret_expires_at: new Date(now.getTime() + ROTATION_GRACE_MS),
        ...(await sealSecret(tx, ctx.deps, merchantAccountId, id, secret)),
      });
      await recordAudit(tx, ctx, 'updated', webhookSubscriptionAuditResource(row));
      return toWebhookSubscriptionResource(row, { secret, now });
    }),
  );
}

/**
 * Active subscriptions of a merchant account, oldest first. Read through the process's cache when
 * `db` is the pool; a transaction (`db` is not `deps.db`) reads the database (one query), so it
 * sees its own snapshot and writes.
 */
export async function activeSubscriptions(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
): Promise<readonly WebhookSubscriptionRow[]> {
  if (db !== deps.db) return repo.listActiveSubscriptions(db, merchantAccountId);
  // Frozen all the way down; a write to a shared row throws at run time (modules are strict mode).
  return deps.readCaches.webhookSubscriptions.get(merchantAccountId, () =>
    repo.listActiveSubscriptions(db, merchantAccountId),
  ) as Promise<readonly WebhookSubscriptionRow[]>;
}

/** The secrets a delivery is signed with right now: [current] or [current, previous] while rotating. */
export async function signingSecrets(
  db: Executor,
  deps: Deps,
  row: WebhookSubscriptionRow,
  now: Date,
): Promise<string[]> {
  return openSecrets(db, deps, row, now);
}

/** Basic auth credentials in clear for one delivery, or null. */
export async function basicAuthOf(
  db: Executor,
  deps: Deps,
  row: WebhookSubscriptionRow,
): Promise<{ username: string; password: string } | null> {
  return openAuthentication(db, deps, row);
}

export async function findSubscription(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<WebhookSubscriptionRow | null> {
  return (await repo.findSubscription(db, merchantAccountId, id)) ?? null;
}
