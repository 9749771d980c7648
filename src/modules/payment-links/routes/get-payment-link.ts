import { defineRoute } from '../../../http/define-route.ts';
import { PaymentLinkParams, PaymentLinkSchema } from '../payment-links.schemas.ts';
import { getPaymentLink as run } from '../payment-links.service.ts';

export const getPaymentLink = defineRoute({
  operationId: 'getPaymentLink',
  method: 'GET',
  url: '/payment-links/:payment_link_id',
  scope: 'payment-links.read',
  tags: ['payment-links'],
  summary: 'Read a payment link',
  description:
    'A link past its expires_at is expired on read; a link whose payment has ended is completed (paid) or active again (declined) on read.',
  status: 200,
  params: PaymentLinkParams,
  response: PaymentLinkSchema,
  handler: ({ ctx, params }) => run(ctx, params.payment_link_id),
});
