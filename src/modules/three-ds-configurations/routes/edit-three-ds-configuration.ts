import { defineRoute } from '../../../http/define-route.ts';
import {
  ThreeDsConfigurationParams,
  ThreeDsConfigurationSchema,
  UpdateThreeDsConfigurationBody,
} from '../three-ds-configurations.schemas.ts';
import { editThreeDsConfiguration as edit } from '../three-ds-configurations.service.ts';

export const editThreeDsConfiguration = defineRoute({
  operationId: 'editThreeDsConfiguration',
  method: 'PUT',
  url: '/merchant-accounts/:merchant_account_id/three-ds-configurations/:three_ds_configuration_id',
  scope: 'merchant-accounts.write',
  tags: ['merchant-accounts'],
  summary: 'Edit a 3DS configuration',
  description:
    'Partial update: fields that are not sent keep their value. `currency: null` makes the configuration apply to every currency; null for any other field is refused with 400, since the resource requires it.',
  status: 200,
  merchantScoped: false,
  params: ThreeDsConfigurationParams,
  body: UpdateThreeDsConfigurationBody,
  bodyOptional: true,
  response: ThreeDsConfigurationSchema,
  handler: ({ ctx, params, body }) => edit(ctx, params.merchant_account_id, params.three_ds_configuration_id, body),
});
