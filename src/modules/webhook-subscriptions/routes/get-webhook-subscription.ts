import { defineRoute } from '../../../http/define-route.ts';
import { WebhookSubscriptionParams, WebhookSubscriptionSchema } from '../webhook-subscriptions.schemas.ts';
import { getWebhookSubscription as get } from '../webhook-subscriptions.service.ts';

export const getWebhookSubscription = defineRoute({
  operationId: 'getWebhookSubscription',
  method: 'GET',
  url: '/webhook-subscriptions/:subscription_id',
  scope: 'webhook-subscriptions.read',
  tags: ['webhook-subscriptions'],
  summary: 'Read a webhook subscription',
  description: 'The secret and the password are masked.',
  status: 200,
  params: WebhookSubscriptionParams,
  response: WebhookSubscriptionSchema,
  handler: ({ ctx, params }) => get(ctx, params.subscription_id),
});
