import type { FastifyInstance } from 'fastify';
import { addBuyerShippingDetails } from './routes/add-buyer-shipping-details.ts';
import { addBuyer } from './routes/add-buyer.ts';
import { deleteBuyerShippingDetails } from './routes/delete-buyer-shipping-details.ts';
import { deleteBuyer } from './routes/delete-buyer.ts';
import { getBuyerShippingDetails } from './routes/get-buyer-shipping-details.ts';
import { getBuyer } from './routes/get-buyer.ts';
import { listBuyerShippingDetails } from './routes/list-buyer-shipping-details.ts';
import { listBuyers } from './routes/list-buyers.ts';
import { updateBuyerShippingDetails } from './routes/update-buyer-shipping-details.ts';
import { updateBuyer } from './routes/update-buyer.ts';

export const buyerRoutes = [
  addBuyer,
  listBuyers,
  getBuyer,
  updateBuyer,
  deleteBuyer,
  addBuyerShippingDetails,
  listBuyerShippingDetails,
  getBuyerShippingDetails,
  updateBuyerShippingDetails,
  deleteBuyerShippingDetails,
];

/** Buyers and their shipping details (a sub-resource of the buyer, in this module). */
export async function buyers(app: FastifyInstance): Promise<void> {
  for (const route of buyerRoutes) app.route(route);
}
