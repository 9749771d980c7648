import { defineRoute } from '../../../http/define-route.ts';
import {
  MerchantAccountParams,
  MerchantAccountSchema,
  UpdateMerchantAccountBody,
} from '../merchant-accounts.schemas.ts';
import { updateMerchantAccount as update } from '../merchant-accounts.service.ts';

export const updateMerchantAccount = defineRoute({
  operationId: 'updateMerchantAccount',
  method: 'PUT',
  url: '/merchant-accounts/:merchant_account_id',
  scope: 'merchant-accounts.write',
  tags: ['merchant-accounts'],
  summary: 'Update a merchant account',
  description:
    'Partial update: fields that are not sent keep their value. The three loon fields are set or nulled together.',
  status: 200,
  merchantScoped: false,
  params: MerchantAccountParams,
  body: UpdateMerchantAccountBody,
  response: MerchantAccountSchema,
  handler: ({ ctx, params, body }) => update(ctx, params.merchant_account_id, body),
});
