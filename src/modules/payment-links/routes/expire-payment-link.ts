import { defineRoute } from '../../../http/define-route.ts';
import { PaymentLinkParams } from '../payment-links.schemas.ts';
import { expirePaymentLink as run } from '../payment-links.service.ts';

export const expirePaymentLink = defineRoute({
  operationId: 'expirePaymentLink',
  method: 'POST',
  url: '/payment-links/:payment_link_id/expire',
  scope: 'payment-links.write',
  tags: ['payment-links'],
  summary: 'Expire a payment link: its page accepts no payment any more',
  description:
    'An active link expires; an expired one stays so (204 both). A completed link, or one whose payment is in flight, is refused with 400.',
  status: 204,
  params: PaymentLinkParams,
  bodyOptional: true,
  response: null,
  handler: ({ ctx, params }) => run(ctx, params.payment_link_id),
});
