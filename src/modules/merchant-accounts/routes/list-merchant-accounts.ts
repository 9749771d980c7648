import { defineRoute } from '../../../http/define-route.ts';
import { ListMerchantAccountsQuery, MerchantAccountsSchema } from '../merchant-accounts.schemas.ts';
import { listMerchantAccounts as list } from '../merchant-accounts.service.ts';

export const listMerchantAccounts = defineRoute({
  operationId: 'listMerchantAccounts',
  method: 'GET',
  url: '/merchant-accounts',
  scope: 'merchant-accounts.read',
  tags: ['merchant-accounts'],
  summary: 'List merchant accounts, newest first',
  status: 200,
  merchantScoped: false,
  querystring: ListMerchantAccountsQuery,
  response: MerchantAccountsSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
