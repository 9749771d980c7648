import { defineRoute } from '../../../http/define-route.ts';
import { MerchantAccountParams, MerchantAccountSchema } from '../merchant-accounts.schemas.ts';
import { getMerchantAccount as get } from '../merchant-accounts.service.ts';

export const getMerchantAccount = defineRoute({
  operationId: 'getMerchantAccount',
  method: 'GET',
  url: '/merchant-accounts/:merchant_account_id',
  scope: 'merchant-accounts.read',
  tags: ['merchant-accounts'],
  summary: 'Read a merchant account',
  status: 200,
  merchantScoped: false,
  params: MerchantAccountParams,
  response: MerchantAccountSchema,
  handler: ({ ctx, params }) => get(ctx, params.merchant_account_id),
});
