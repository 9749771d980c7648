import { defineRoute } from '../../../http/define-route.ts';
import { receiveProviderWebhook } from '../inbound-webhooks.service.ts';
import { InboundWebhookParams, InboundWebhookReceiptSchema } from '../inbound-webhooks.schemas.ts';

export const receiveProviderWebhookRoute = defineRoute({
  operationId: 'receiveProviderWebhook',
  method: 'POST',
  url: '/merchant-accounts/:merchant_account_id/payment-services/:payment_service_id/webhooks',
  // No bearer token: the provider authenticates the request by signing its body (checked by the connector).
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-services'],
  summary: "Receive a payment service provider's webhook (signed by the provider; no token)",
  description:
    "The address to register at the provider for this payment service. The connector verifies the provider's signature over the raw body (401 and no change when it does not check out); an event is applied once, by the provider's event id.",
  status: 200,
  params: InboundWebhookParams,
  response: InboundWebhookReceiptSchema,
  handler: async ({ ctx, params, request }) => {
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(',') : v]),
    );
    const url = `${ctx.deps.config.publicUrl}${request.url}`;
    return receiveProviderWebhook(ctx.deps, ctx.log, params.merchant_account_id, params.payment_service_id, {
      headers,
      rawBody,
      url,
    });
  },
});
