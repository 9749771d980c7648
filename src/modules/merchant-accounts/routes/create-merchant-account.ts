import { defineRoute } from '../../../http/define-route.ts';
import { CreateMerchantAccountBody, MerchantAccountSchema } from '../merchant-accounts.schemas.ts';
import { createMerchantAccount as create } from '../merchant-accounts.service.ts';

export const createMerchantAccount = defineRoute({
  operationId: 'createMerchantAccount',
  method: 'POST',
  url: '/merchant-accounts',
  scope: 'merchant-accounts.write',
  tags: ['merchant-accounts'],
  summary: 'Create a merchant account',
  description:
    'The id is chosen by the caller. A second account with the same id answers 409 with the existing id in resource_id.',
  status: 201,
  merchantScoped: false,
  body: CreateMerchantAccountBody,
  response: MerchantAccountSchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
