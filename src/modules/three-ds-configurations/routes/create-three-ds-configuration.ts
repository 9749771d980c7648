import { defineRoute } from '../../../http/define-route.ts';
import {
  CreateThreeDsConfigurationBody,
  ThreeDsConfigurationSchema,
  ThreeDsConfigurationsParams,
} from '../three-ds-configurations.schemas.ts';
import { createThreeDsConfiguration as create } from '../three-ds-configurations.service.ts';

export const createThreeDsConfiguration = defineRoute({
  operationId: 'createThreeDsConfiguration',
  method: 'POST',
  url: '/merchant-accounts/:merchant_account_id/three-ds-configurations',
  scope: 'merchant-accounts.write',
  tags: ['merchant-accounts'],
  summary: 'Add a per-scheme 3DS configuration to a merchant account',
  description:
    'One configuration per scheme and currency (a null currency, meaning every currency, counts as its own value): a second one answers 409 with the existing id in resource_id.',
  status: 201,
  merchantScoped: false,
  params: ThreeDsConfigurationsParams,
  body: CreateThreeDsConfigurationBody,
  response: ThreeDsConfigurationSchema,
  handler: ({ ctx, params, body }) => create(ctx, params.merchant_account_id, body),
});
