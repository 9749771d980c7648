import { defineRoute } from '../../../http/define-route.ts';
import { CreateWebhookSubscriptionBody, WebhookSubscriptionSchema } from '../webhook-subscriptions.schemas.ts';
import { createWebhookSubscription as create } from '../webhook-subscriptions.service.ts';

export const createWebhookSubscription = defineRoute({
  operationId: 'createWebhookSubscription',
  method: 'POST',
  url: '/webhook-subscriptions',
  scope: 'webhook-subscriptions.write',
  tags: ['webhook-subscriptions'],
  summary: 'Subscribe a URL to the events of the merchant account',
  description:
    'The server generates the signing secret (`whsec_` + 256 random bits) and returns it in full in this response only; store it now. ' +
    'The URL must be https and resolve to a public address (in the sandbox, WEBHOOK_ALLOW_PRIVATE_URLS=true also allows http and private addresses); otherwise 400 naming `/url`. ' +
    'A basic authentication password is stored encrypted and always returned masked.',
  status: 201,
  body: CreateWebhookSubscriptionBody,
  response: WebhookSubscriptionSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
