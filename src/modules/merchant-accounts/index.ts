import type { FastifyInstance } from 'fastify';
import { createMerchantAccount } from './routes/create-merchant-account.ts';
import { getMerchantAccount } from './routes/get-merchant-account.ts';
import { listMerchantAccounts } from './routes/list-merchant-accounts.ts';

export const merchantAccountRoutes = [createMerchantAccount, listMerchantAccounts, getMerchantAccount];

export async function merchantAccounts(app: FastifyInstance): Promise<void> {
  for (const route of merchantAccountRoutes) app.route(route);
}
