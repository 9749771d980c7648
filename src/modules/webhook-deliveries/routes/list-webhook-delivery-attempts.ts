import { defineRoute } from '../../../http/define-route.ts';
import { DeliveryParams, WebhookDeliveryAttemptsSchema } from '../webhook-deliveries.schemas.ts';
import { listWebhookDeliveryAttempts as list } from '../webhook-deliveries.service.ts';

export const listWebhookDeliveryAttempts = defineRoute({
  operationId: 'listWebhookDeliveryAttempts',
  method: 'GET',
  url: '/webhook-subscriptions/:subscription_id/deliveries/:delivery_id/attempts',
  scope: 'webhook-subscriptions.read',
  tags: ['webhook-subscriptions'],
  summary: 'List the attempts of a webhook delivery, newest first',
  description:
    'Each attempt: when, the HTTP status answered (null for a timeout, a refused connection or a URL refused by the address rules), its duration and error.',
  status: 200,
  params: DeliveryParams,
  response: WebhookDeliveryAttemptsSchema,
  handler: ({ ctx, params }) => list(ctx, params.subscription_id, params.delivery_id),
});
