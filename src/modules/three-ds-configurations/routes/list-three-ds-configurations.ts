import { defineRoute } from '../../../http/define-route.ts';
import {
  ListThreeDsConfigurationsQuery,
  ThreeDsConfigurationsParams,
  ThreeDsConfigurationsSchema,
} from '../three-ds-configurations.schemas.ts';
import { listThreeDsConfigurations as list } from '../three-ds-configurations.service.ts';

export const listThreeDsConfigurations = defineRoute({
  operationId: 'listThreeDsConfigurations',
  method: 'GET',
  url: '/merchant-accounts/:merchant_account_id/three-ds-configurations',
  scope: 'merchant-accounts.read',
  tags: ['merchant-accounts'],
  summary: 'List the 3DS configurations of a merchant account, newest first',
  description:
    'A plain list without cursors. `currency` keeps the configurations of exactly that currency (not those that apply to every currency).',
  status: 200,
  merchantScoped: false,
  params: ThreeDsConfigurationsParams,
  querystring: ListThreeDsConfigurationsQuery,
  response: ThreeDsConfigurationsSchema,
  handler: ({ ctx, params, query }) => list(ctx, params.merchant_account_id, query),
});
