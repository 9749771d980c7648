import type { FastifyInstance } from 'fastify';
import { createApplePayDigitalWalletSession } from './routes/create-apple-pay-digital-wallet-session.ts';
import { completePazeDigitalWalletSession } from './routes/complete-paze-digital-wallet-session.ts';
import { createClickToPayDigitalWalletSession } from './routes/create-click-to-pay-digital-wallet-session.ts';
import { createDigitalWallet } from './routes/create-digital-wallet.ts';
import { createGooglePayDigitalWalletSession } from './routes/create-google-pay-digital-wallet-session.ts';
import { createPazeDigitalWalletCheckout } from './routes/create-paze-digital-wallet-checkout.ts';
import { createPazeDigitalWalletSession } from './routes/create-paze-digital-wallet-session.ts';
import { deleteDigitalWallet } from './routes/delete-digital-wallet.ts';
import { getDigitalWallet } from './routes/get-digital-wallet.ts';
import { listDigitalWallets } from './routes/list-digital-wallets.ts';
import { registerDigitalWalletDomain } from './routes/register-digital-wallet-domain.ts';
import { reviewPazeDigitalWalletSession } from './routes/review-paze-digital-wallet-session.ts';
import { unregisterDigitalWalletDomain } from './routes/unregister-digital-wallet-domain.ts';
import { updateDigitalWallet } from './routes/update-digital-wallet.ts';

/** Digital wallets: registrations per provider, their domains, and wallet sessions. */
export async function digitalWallets(app: FastifyInstance): Promise<void> {
  for (const route of [
    createDigitalWallet,
    listDigitalWallets,
    getDigitalWallet,
    updateDigitalWallet,
    deleteDigitalWallet,
    registerDigitalWalletDomain,
    unregisterDigitalWalletDomain,
    createApplePayDigitalWalletSession,
    createGooglePayDigitalWalletSession,
    createClickToPayDigitalWalletSession,
    createPazeDigitalWalletSession,
    createPazeDigitalWalletCheckout,
    reviewPazeDigitalWalletSession,
    completePazeDigitalWalletSession,
  ])
    app.route(route);
}
