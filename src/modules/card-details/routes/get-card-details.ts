import { defineRoute } from '../../../http/define-route.ts';
import { CardDetailSchema, GetCardDetailsQuery } from '../card-details.schemas.ts';
import { getCardDetails as get } from '../card-details.service.ts';

export const getCardDetails = defineRoute({
  operationId: 'getCardDetails',
  method: 'GET',
  url: '/card-details',
  scope: 'payment-methods.read',
  tags: ['card-details'],
  summary: 'Look up the scheme of a BIN',
  description:
    "Answers from the server's IIN table: scheme, co-badged schemes, allowed number lengths and, for domestic schemes, the country. " +
    'Send only the BIN (6 to 8 digits); a value with more digits is refused with 400 so that card numbers are never sent here.',
  status: 200,
  embed: true,
  querystring: GetCardDetailsQuery,
  response: CardDetailSchema,
  handler: ({ ctx, query }) => get(ctx, query.bin),
});
