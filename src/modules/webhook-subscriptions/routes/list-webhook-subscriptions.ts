import { defineRoute } from '../../../http/define-route.ts';
import { ListWebhookSubscriptionsQuery, WebhookSubscriptionsSchema } from '../webhook-subscriptions.schemas.ts';
import { listWebhookSubscriptions as list } from '../webhook-subscriptions.service.ts';

export const listWebhookSubscriptions = defineRoute({
  operationId: 'listWebhookSubscriptions',
  method: 'GET',
  url: '/webhook-subscriptions',
  scope: 'webhook-subscriptions.read',
  tags: ['webhook-subscriptions'],
  summary: 'List the webhook subscriptions of the merchant account, newest first',
  description: 'Secrets are masked (`whsec_…` and the last 4 characters) and passwords are masked.',
  status: 200,
  querystring: ListWebhookSubscriptionsQuery,
  response: WebhookSubscriptionsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
