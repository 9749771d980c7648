import { withRequestTransaction, type RequestContext } from '../../context.ts';
import { badRequest, notFound } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { scheduleAttempt } from '../events/deliveries.service.ts';
import { GIVE_UP_AFTER_MS } from '../events/events.service.ts';
import { findSubscription } from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import * as repo from './webhook-deliveries.repo.ts';
import {
  toWebhookDeliveryAttemptResource,
  toWebhookDeliveryResource,
  type ListDeliveriesQuery,
  type WebhookDelivery,
  type WebhookDeliveryAttempt,
} from './webhook-deliveries.schemas.ts';

/** 404 unless the subscription belongs to the request's merchant account. */
async function assertSubscription(ctx: RequestContext, subscriptionId: string): Promise<void> {
  if (!(await findSubscription(ctx.deps.db, ctx.merchantAccountId, subscriptionId)))
    throw notFound('webhook subscription', subscriptionId);
}

export async function listWebhookSubscriptionDeliveries(
  ctx: RequestContext,
  subscriptionId: string,
  query: ListDeliveriesQuery,
): Promise<ListEnvelope<WebhookDelivery>> {
  await assertSubscription(ctx, subscriptionId);
  return listPage(
    ctx,
    `webhook-deliveries:${subscriptionId}`,
    query,
    (position, limit) => repo.listDeliveries(ctx.deps.db, ctx.merchantAccountId, subscriptionId, position, limit),
    toWebhookDeliveryResource,
    (row) => [row.created_at, row.id],
  );
}

export async function listWebhookDeliveryAttempts(
  ctx: RequestContext,
  subscriptionId: string,
  deliveryId: string,
): Promise<{ items: WebhookDeliveryAttempt[] }> {
  const delivery = await repo.findDelivery(ctx.deps.db, ctx.merchantAccountId, subscriptionId, deliveryId);
  if (!delivery) throw notFound('webhook delivery', deliveryId);
  const rows = await repo.listAttempts(ctx.deps.db, ctx.merchantAccountId, deliveryId);
  return { items: rows.map(toWebhookDeliveryAttemptResource) };
}

/**
 * Sends a failed delivery again: pending, due now, with a new 24-hour deadline and a job. Pending
 * and succeeded deliveries are refused (400): they are still being sent, or were received.
 */
export async function retryWebhookDelivery(
  ctx: RequestContext,
  subscriptionId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  return withRequestTransaction(ctx, async (tx) => {
    const delivery = await repo.findDelivery(tx, ctx.merchantAccountId, subscriptionId, deliveryId, {
      forUpdate: true,
    });
    if (!delivery) throw notFound('webhook delivery', deliveryId);
    if (delivery.status !== 'failed')
      throw badRequest(`only a failed delivery can be sent again; this one is ${delivery.status}`);
    const now = new Date();
    await repo.reopenDelivery(tx, ctx.merchantAccountId, deliveryId, now, new Date(now.getTime() + GIVE_UP_AFTER_MS));
    await scheduleAttempt(tx, ctx.deps, delivery, now);
    return toWebhookDeliveryResource((await repo.findDelivery(tx, ctx.merchantAccountId, subscriptionId, deliveryId))!);
  });
}
