import { defineRoute } from '../../../http/define-route.ts';
import { WebhookSubscriptionParams } from '../webhook-subscriptions.schemas.ts';
import { deleteWebhookSubscription as remove } from '../webhook-subscriptions.service.ts';

export const deleteWebhookSubscription = defineRoute({
  operationId: 'deleteWebhookSubscription',
  method: 'DELETE',
  url: '/webhook-subscriptions/:subscription_id',
  scope: 'webhook-subscriptions.write',
  tags: ['webhook-subscriptions'],
  summary: 'Delete a webhook subscription',
  description:
    'Answers 204 with no body. The subscription is removed with its pending deliveries and their history: no further event is sent to it, including retries. A second DELETE answers 404.',
  status: 204,
  params: WebhookSubscriptionParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.subscription_id),
});
