import { defineRoute } from '../../../http/define-route.ts';
import { ThreeDsConfigurationParams } from '../three-ds-configurations.schemas.ts';
import { deleteThreeDsConfiguration as remove } from '../three-ds-configurations.service.ts';

export const deleteThreeDsConfiguration = defineRoute({
  operationId: 'deleteThreeDsConfiguration',
  method: 'DELETE',
  url: '/merchant-accounts/:merchant_account_id/three-ds-configurations/:three_ds_configuration_id',
  scope: 'merchant-accounts.write',
  tags: ['merchant-accounts'],
  summary: 'Delete a 3DS configuration',
  status: 204,
  merchantScoped: false,
  params: ThreeDsConfigurationParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.merchant_account_id, params.three_ds_configuration_id),
});
