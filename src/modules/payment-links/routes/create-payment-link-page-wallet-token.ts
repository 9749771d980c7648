import { Type } from 'typebox';
import { AppError } from '../../../errors/app-error.ts';
import { defineRoute } from '../../../http/define-route.ts';
import { StringEnum } from '../../../http/schemas/common.ts';
import { WALLET_METHODS } from '../link-wallets.ts';
import { mintPageWalletToken } from '../page-wallets.service.ts';
import { SANDBOX_WALLET_CARD_IDS } from '../page/sandbox-wallet-cards.ts';
import { guardPageCall, pageContext, PageParams, TokenHeaders } from './page-support.ts';

export const createPaymentLinkPageWalletToken = defineRoute({
  operationId: 'createPaymentLinkPageWalletToken',
  method: 'POST',
  url: '/pay/:merchant_account_id/:payment_link_id/wallet-tokens',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['payment-links'],
  summary:
    "Sandbox only: the simulated wallet sheet of the hosted page turns a sandbox test card into a real Apple Pay or Google Pay test token (called by the page's script)",
  description:
    "The token is signed by the sandbox's test chain, which only a sandbox trusts, and encrypted to the key this server decrypts the merchant account's tokens with (the wallet's own processing key, else the sandbox's); " +
    'the page then pays with it through POST /pay/{merchant_account_id}/{payment_link_id}/payments. 404 outside the sandbox. The wallet must be offered for the link. Needs the page token; counted per link.',
  status: 201,
  params: PageParams,
  headers: TokenHeaders,
  body: Type.Object(
    {
      method: StringEnum(WALLET_METHODS, { description: 'The wallet whose token to make' }),
      card: StringEnum(SANDBOX_WALLET_CARD_IDS, {
        description: 'A card of the simulated wallet sheet (docs/digital-wallets.md, "On the hosted payment page")',
      }),
    },
    { additionalProperties: false },
  ),
  response: Type.Object(
    {
      token: Type.Record(Type.String(), Type.Unknown(), {
        description: "The wallet's payment token (Apple Pay JS payment.token, or Google Pay's token object)",
      }),
    },
    { additionalProperties: false },
  ),
  handler: async ({ ctx, params, headers, body }) => {
    // Before anything else: outside the sandbox the operation does not exist.
    if (ctx.deps.config.environment !== 'sandbox')
      throw new AppError('not_found', 'Sandbox wallet tokens exist in the sandbox environment only');
    await guardPageCall(ctx, params, headers);
    return mintPageWalletToken(pageContext(ctx, params.merchant_account_id), params.payment_link_id, body);
  },
});
