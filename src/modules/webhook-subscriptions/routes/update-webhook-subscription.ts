import { defineRoute } from '../../../http/define-route.ts';
import {
  UpdateWebhookSubscriptionBody,
  WebhookSubscriptionParams,
  WebhookSubscriptionSchema,
} from '../webhook-subscriptions.schemas.ts';
import { updateWebhookSubscription as update } from '../webhook-subscriptions.service.ts';

export const updateWebhookSubscription = defineRoute({
  operationId: 'updateWebhookSubscription',
  method: 'PUT',
  url: '/webhook-subscriptions/:subscription_id',
  scope: 'webhook-subscriptions.write',
  tags: ['webhook-subscriptions'],
  summary: 'Change a webhook subscription (partial update)',
  description:
    'Fields not sent keep their value. `authentication` replaces the basic authentication as a whole (username and password); `null` removes it. ' +
    'A new `url` is checked like on creation. The secret is not changed here: use rotate-secret. The answer masks the secret and the password.',
  status: 200,
  params: WebhookSubscriptionParams,
  body: UpdateWebhookSubscriptionBody,
  bodyOptional: true,
  response: WebhookSubscriptionSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.subscription_id, body),
});
