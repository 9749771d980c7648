import { defineRoute } from '../../../http/define-route.ts';
import { ListPaymentLinksQuery, PaymentLinksSchema } from '../payment-links.schemas.ts';
import { listPaymentLinks as run } from '../payment-links.service.ts';

export const listPaymentLinks = defineRoute({
  operationId: 'listPaymentLinks',
  method: 'GET',
  url: '/payment-links',
  scope: 'payment-links.read',
  tags: ['payment-links'],
  summary: 'List payment links, last updated first',
  description:
    'Filters: created and updated ranges (with a time zone offset), currency, amount (eq, gte, lte), status and buyer_search (repeat a key to match any of its values).',
  status: 200,
  querystring: ListPaymentLinksQuery,
  response: PaymentLinksSchema,
  handler: ({ ctx, query }) => run(ctx, query),
});
