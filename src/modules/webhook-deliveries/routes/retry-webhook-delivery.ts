import { defineRoute } from '../../../http/define-route.ts';
import { DeliveryParams, WebhookDeliverySchema } from '../webhook-deliveries.schemas.ts';
import { retryWebhookDelivery as retry } from '../webhook-deliveries.service.ts';

export const retryWebhookDelivery = defineRoute({
  operationId: 'retryWebhookDelivery',
  method: 'POST',
  url: '/webhook-subscriptions/:subscription_id/deliveries/:delivery_id/retry',
  scope: 'webhook-subscriptions.write',
  tags: ['webhook-subscriptions'],
  summary: 'Send a failed webhook delivery again',
  description:
    'The delivery goes back to `pending`, is attempted at once and retried for another 24 hours. 400 for a pending or succeeded delivery.',
  status: 200,
  params: DeliveryParams,
  response: WebhookDeliverySchema,
  handler: ({ ctx, params }) => retry(ctx, params.subscription_id, params.delivery_id),
});
