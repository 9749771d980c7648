import { defineRoute } from '../../../http/define-route.ts';
import { WebhookSubscriptionParams, WebhookSubscriptionSchema } from '../webhook-subscriptions.schemas.ts';
import { rotateWebhookSubscriptionSecret as rotate } from '../webhook-subscriptions.service.ts';

export const rotateWebhookSubscriptionSecret = defineRoute({
  operationId: 'rotateWebhookSubscriptionSecret',
  method: 'POST',
  url: '/webhook-subscriptions/:subscription_id/rotate-secret',
  scope: 'webhook-subscriptions.write',
  tags: ['webhook-subscriptions'],
  summary: 'Replace the signing secret, keeping the previous one valid for 24 hours',
  description:
    'Returns the new secret in full, in this response only. For 24 hours the replaced secret stays valid: deliveries carry a signature for each secret and `rotating` is true. ' +
    'Rotating again during that time keeps only the secret just replaced as the previous one.',
  status: 200,
  params: WebhookSubscriptionParams,
  response: WebhookSubscriptionSchema,
  handler: ({ ctx, params }) => rotate(ctx, params.subscription_id),
});
