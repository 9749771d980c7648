import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { RequestContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import { decryptApplePayToken, type AppleRecipient } from '../../wallets/apple-pay.ts';
import { APPLE_ROOT_CA_G3 } from '../../wallets/apple-root.ts';
import { decryptGooglePayToken, type GoogleRecipient, type GoogleRootKey } from '../../wallets/google-pay.ts';
import { sandboxWalletKeys } from '../../wallets/sandbox-keys.ts';
import { WalletTokenError } from '../../wallets/token-error.ts';
import type { WalletCard } from '../../wallets/wallet-card.ts';
import * as repo from './digital-wallets.repo.ts';
import { ecPrivateKey, walletSecrets } from './wallet-secrets.ts';

/**
 * Decrypts the wallet token of a payment (`method: applepay | googlepay`) with the keys of the
 * merchant account's wallet of that provider: the merchant's own keys when configured, else in the
 * sandbox the sandbox's test keys (sandbox-keys.ts). The card lives in memory for the one
 * authorization; nothing of it is logged or stored here.
 */

export type WalletProvider = 'apple' | 'google';
const POINTER = '/payment_method/token';
const NAMES: Record<WalletProvider, string> = { apple: 'Apple Pay', google: 'Google Pay' };

const refuse = (message: string, type: string) => fieldRefusal('body', POINTER, message, type);

function appleRoots(config: Config): X509Certificate[] {
  const roots = [new X509Certificate(APPLE_ROOT_CA_G3), ...config.applePayRootCertificates.map((pem) => new X509Certificate(pem))];
  if (config.environment === 'sandbox') roots.push(sandboxWalletKeys().apple.root);
  return roots;
}

function googleRoots(config: Config): GoogleRootKey[] {
  const roots: GoogleRootKey[] = [...config.googlePayRootSigningKeys];
  if (config.environment === 'sandbox') roots.push(sandboxWalletKeys().google.root);
  return roots;
}

type Recipient = { apple: AppleRecipient; google: GoogleRecipient };

/** The recipient keys of the merchant account's wallet of `provider`. */
async function recipientOf<P extends WalletProvider>(db: Executor, ctx: RequestContext, provider: P): Promise<Recipient[P]> {
  const wallet = await repo.findWalletByProvider(db, ctx.merchantAccountId, provider);
  if (!wallet) throw refuse(`No ${provider} digital wallet is registered for this merchant account: register one with POST /digital-wallets before accepting ${NAMES[provider]}`, 'wallet_not_registered');
  if (wallet.payment_processing_key_configured) {
    const secrets = await walletSecrets(db, ctx.deps, wallet);
    const privateKey = ecPrivateKey(secrets.payment_processing_private_key!, 'payment_processing_private_key');
    return (provider === 'apple' ? { privateKey, merchantIdentifier: wallet.apple_merchant_identifier! } : { privateKey, recipientId: `merchant:${wallet.google_merchant_id}` }) as Recipient[P];
  }
  if (ctx.deps.config.environment !== 'sandbox') {
    throw refuse(`The ${provider} wallet has no payment processing key, so this server cannot decrypt ${NAMES[provider]} tokens: add payment_processing_private_key with PUT /digital-wallets/{id}, or decrypt the token yourself and pay with method network-token`, 'wallet_keys_missing');
  }
  const sandbox = sandboxWalletKeys();
  return (provider === 'apple' ? { privateKey: sandbox.apple.processingKey, merchantIdentifier: sandbox.apple.merchantIdentifier } : { privateKey: sandbox.google.processingKey, recipientId: sandbox.google.recipientId }) as Recipient[P];
}

/**
 * The public half of the key that decrypts the merchant account's tokens of `provider`, and the
 * identity tokens are made for (Apple merchant identifier, Google recipient id): what a wallet
 * encrypts to. The same choice as decryption (the wallet's own key, else the sandbox's), so a token
 * made for it is one this server decrypts.
 */
export async function recipientPublicKey(ctx: RequestContext, provider: WalletProvider): Promise<{ publicKey: KeyObject; id: string }> {
  const recipient: AppleRecipient | GoogleRecipient = await recipientOf(ctx.deps.db, ctx, provider);
  return { publicKey: createPublicKey(recipient.privateKey), id: 'merchantIdentifier' in recipient ? recipient.merchantIdentifier : recipient.recipientId };
}

/**
 * Verifies and decrypts the token; a refused token is a 400 on `payment_method.token` that says why.
 * `db`: the caller's transaction (the wallet and its keys are read in it).
 */
export async function decryptWalletToken(db: Executor, ctx: RequestContext, provider: WalletProvider, token: string | Record<string, unknown>): Promise<WalletCard> {
  const config = ctx.deps.config;
  const now = new Date();
  try {
    if (provider === 'apple') {
      if (typeof token !== 'object') throw new WalletTokenError('malformed', 'An Apple Pay token is the JSON object Apple Pay JS gives (payment.token)');
      return decryptApplePayToken(token, await recipientOf(db, ctx, 'apple'), { roots: appleRoots(config), now, maxAgeSeconds: config.walletTokenMaxAgeSeconds });
    }
    const roots = googleRoots(config);
    if (roots.length === 0) throw refuse('Google Pay tokens cannot be verified: the server has no Google root signing keys (GOOGLE_PAY_ROOT_SIGNING_KEYS)', 'wallet_keys_missing');
    return decryptGooglePayToken(token, await recipientOf(db, ctx, 'google'), roots, now);
  } catch (error) {
    if (!(error instanceof WalletTokenError)) throw error;
    throw refuse(`The ${NAMES[provider]} token was refused: ${error.message}`, `wallet_token_${error.reason}`);
  }
}
