import type { FastifyInstance } from 'fastify';
import { createPaymentMethodNetworkTokenCryptogram } from './routes/create-payment-method-network-token-cryptogram.ts';
import { createPaymentMethodNetworkToken } from './routes/create-payment-method-network-token.ts';
import { deletePaymentMethodNetworkToken } from './routes/delete-payment-method-network-token.ts';
import { listPaymentMethodNetworkTokens } from './routes/list-payment-method-network-tokens.ts';
import { resumePaymentMethodNetworkToken } from './routes/resume-payment-method-network-token.ts';
import { suspendPaymentMethodNetworkToken } from './routes/suspend-payment-method-network-token.ts';

export async function networkTokens(app: FastifyInstance): Promise<void> {
  for (const route of [
    createPaymentMethodNetworkToken,
    listPaymentMethodNetworkTokens,
    deletePaymentMethodNetworkToken,
    suspendPaymentMethodNetworkToken,
    resumePaymentMethodNetworkToken,
    createPaymentMethodNetworkTokenCryptogram,
  ]) {
    app.route(route);
  }
}
