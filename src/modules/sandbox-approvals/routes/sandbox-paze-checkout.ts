import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { choosePazeCard, pazeCheckoutPage } from '../../digital-wallets/paze-sessions.service.ts';
import { renderPazeCheckoutPage, renderPazeReturnPage } from '../paze-checkout-page.ts';
import { Html, html, sandboxOnly } from './sandbox-approval.ts';

const Query = Type.Object({
  state: Type.String({ minLength: 1, maxLength: 4096, description: 'The checkout of pazeCheckoutUrl' }),
});
const Params = Type.Object({ card_id: Type.String({ pattern: '^[a-z0-9-]{1,40}$' }) });

export const getSandboxPazeCheckout = defineRoute({
  operationId: 'getSandboxPazeCheckout',
  method: 'GET',
  url: '/sandbox/paze/checkout',
  scope: null,
  merchantScoped: false,
  tags: ['sandbox'],
  summary: 'The simulated Paze checkout page of a mobile session (sandbox; no token: the buyer opens pazeCheckoutUrl)',
  status: 200,
  querystring: Query,
  response: Html,
  handler: async ({ ctx, query, reply }) => {
    sandboxOnly(ctx.deps.config.environment);
    const { cards, amount } = await pazeCheckoutPage(query.state);
    html(reply);
    return renderPazeCheckoutPage(
      cards,
      amount,
      (cardId) => `/sandbox/paze/checkout/cards/${cardId}?state=${encodeURIComponent(query.state)}`,
    );
  },
});

export const chooseSandboxPazeCard = defineRoute({
  operationId: 'chooseSandboxPazeCard',
  method: 'POST',
  url: '/sandbox/paze/checkout/cards/:card_id',
  scope: null,
  merchantScoped: false,
  idempotent: false,
  tags: ['sandbox'],
  summary: 'The buyer chooses a card on the simulated Paze checkout (sandbox)',
  description:
    'Sends the buyer back to the app: <callbackURLScheme>://paze?code=… (a Refresh header and a link), the code naming the card for review and complete.',
  status: 200,
  params: Params,
  querystring: Query,
  bodyOptional: true,
  response: Html,
  handler: async ({ ctx, params, query, reply }) => {
    sandboxOnly(ctx.deps.config.environment);
    const callback = await choosePazeCard(query.state, params.card_id);
    html(reply);
    reply.headers({ refresh: `0;url=${callback}` });
    return renderPazeReturnPage(callback);
  },
});
