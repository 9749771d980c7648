import type { FastifyInstance } from 'fastify';
import { createWebhookSubscription } from './routes/create-webhook-subscription.ts';
import { deleteWebhookSubscription } from './routes/delete-webhook-subscription.ts';
import { getWebhookSubscription } from './routes/get-webhook-subscription.ts';
import { listWebhookSubscriptions } from './routes/list-webhook-subscriptions.ts';
import { rotateWebhookSubscriptionSecret } from './routes/rotate-webhook-subscription-secret.ts';
import { updateWebhookSubscription } from './routes/update-webhook-subscription.ts';

/** Webhook subscriptions: where and how the merchant account's events are delivered. */
export async function webhookSubscriptions(app: FastifyInstance): Promise<void> {
  for (const route of [
    createWebhookSubscription,
    listWebhookSubscriptions,
    getWebhookSubscription,
    updateWebhookSubscription,
    deleteWebhookSubscription,
    rotateWebhookSubscriptionSecret,
  ]) {
    app.route(route);
  }
}
