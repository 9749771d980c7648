import type { FastifyInstance } from 'fastify';
import { listWebhookDeliveryAttempts } from './routes/list-webhook-delivery-attempts.ts';
import { listWebhookSubscriptionDeliveries } from './routes/list-webhook-subscription-deliveries.ts';
import { retryWebhookDelivery } from './routes/retry-webhook-delivery.ts';

/** Delivery history of webhook subscriptions: deliveries, their attempts, and re-sending a failed one. */
export async function webhookDeliveries(app: FastifyInstance): Promise<void> {
  for (const route of [listWebhookSubscriptionDeliveries, listWebhookDeliveryAttempts, retryWebhookDelivery])
    app.route(route);
}
