import type { FastifyInstance } from 'fastify';
import { createGiftCard } from './routes/create-gift-card.ts';
import { createGiftCardActivation } from './routes/create-gift-card-activation.ts';
import { createGiftCardIssuance } from './routes/create-gift-card-issuance.ts';
import { deleteGiftCard } from './routes/delete-gift-card.ts';
import { getGiftCard } from './routes/get-gift-card.ts';
import { listBuyerGiftCards } from './routes/list-buyer-gift-cards.ts';
import { listGiftCardBalances } from './routes/list-gift-card-balances.ts';
import { listGiftCards } from './routes/list-gift-cards.ts';

export async function giftCards(app: FastifyInstance): Promise<void> {
  for (const route of [
    createGiftCard,
    createGiftCardActivation,
    createGiftCardIssuance,
    listGiftCards,
    listGiftCardBalances,
    getGiftCard,
    deleteGiftCard,
    listBuyerGiftCards,
  ])
    app.route(route);
}
