import { defineRoute } from '../../../http/define-route.ts';
import { PaymentMethodDefinitionsSchema } from '../payment-method-definitions.schemas.ts';
import { listPaymentMethodDefinitions as list } from '../payment-method-definitions.service.ts';

export const listPaymentMethodDefinitions = defineRoute({
  operationId: 'listPaymentMethodDefinitions',
  method: 'GET',
  url: '/payment-method-definitions',
  scope: 'payment-method-definitions.read',
  tags: ['payment-method-definitions'],
  summary: 'List the payment methods this server recognizes (name and icon per method)',
  description:
    'A plain `items` list, by id, the same for every merchant account. `icon_url` is an SVG served by this server without a token.',
  status: 200,
  embed: true,
  response: PaymentMethodDefinitionsSchema,
  handler: ({ ctx }) => list(ctx),
});
