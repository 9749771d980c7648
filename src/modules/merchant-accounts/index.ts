import type { FastifyInstance } from 'fastify';
import { createMerchantAccount } from './routes/create-merchant-account.ts';
import { getMerchantAccount } from './routes/get-merchant-account.ts';
import { listMerchantAccounts } from './routes/list-merchant-accounts.ts';
import { updateMerchantAccount } from './routes/update-merchant-account.ts';

export const merchantAccountRoutes = [
  createMerchantAccount,
  listMerchantAccounts,
  getMerchantAccount,
  updateMerchantAccount,
];

export async function merchantAccounts(app: FastifyInstance): Promise<void> {
  for (const route of merchantAccountRoutes) app.route(route);
}
