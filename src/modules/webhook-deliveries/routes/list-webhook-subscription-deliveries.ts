import { defineRoute } from '../../../http/define-route.ts';
import { DeliveriesParams, ListDeliveriesQuery, WebhookDeliveriesSchema } from '../webhook-deliveries.schemas.ts';
import { listWebhookSubscriptionDeliveries as list } from '../webhook-deliveries.service.ts';

export const listWebhookSubscriptionDeliveries = defineRoute({
  operationId: 'listWebhookSubscriptionDeliveries',
  method: 'GET',
  url: '/webhook-subscriptions/:subscription_id/deliveries',
  scope: 'webhook-subscriptions.read',
  tags: ['webhook-subscriptions'],
  summary: 'List the deliveries of a webhook subscription, newest first',
  description:
    'One delivery per event sent to the subscription, with its status, attempt count, last HTTP status and next attempt (docs/webhooks.md).',
  status: 200,
  params: DeliveriesParams,
  querystring: ListDeliveriesQuery,
  response: WebhookDeliveriesSchema,
  handler: ({ ctx, params, query }) => list(ctx, params.subscription_id, query),
});
