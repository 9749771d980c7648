import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';

const SsoOptions = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether the sign-in page offers single sign-on' }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: "The provider's name for the button; null when off",
    }),
    start_url: Type.Union([Type.String(), Type.Null()], {
      description: 'Where the button sends the browser (a navigation, not a fetch); null when off',
    }),
  },
  { additionalProperties: false, title: 'DashboardSsoOptions' },
);

export const getSsoOptions = defineRoute({
  operationId: 'getDashboardSsoOptions',
  method: 'GET',
  url: '/dashboard/api/sso',
  scope: null,
  tags: ['dashboard'],
  summary: 'Whether the dashboard offers single sign-on (OpenID Connect), for its sign-in page',
  status: 200,
  merchantScoped: false,
  response: SsoOptions,
  handler: async ({ ctx }) => {
    const sso = ctx.deps.config.dashboardSso;
    return sso
      ? { enabled: true, name: sso.displayName, start_url: '/dashboard/api/sso/start' }
      : { enabled: false, name: null, start_url: null };
  },
});
