import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { RequestContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import type { Executor } from '../../db/transaction.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import { decryptApplePayToken, type AppleRecipient } from '../../wallets/apple-pay.ts';
import { APPLE_ROOT_CA_G3 } from '../../wallets/apple-root.ts';
import { decryptGooglePayToken, type GoogleRecipient, type GoogleRootKey } from '../../wallets/google-pay.ts';
import {
  decryptPazeToken,
  sessionIdOf,
  verifyPazeCheckoutToken,
  type PazeRecipient,
  type PazeTrust,
} from '../../wallets/paze.ts';
import { sandboxPazeKeys, sandboxWalletKeys } from '../../wallets/sandbox-keys.ts';
import { WalletTokenError } from '../../wallets/token-error.ts';
import { encryptedWalletToken, type EncryptedWalletToken, type WalletProvider } from '../../wallets/token-use.ts';
import type { WalletCard } from '../../wallets/wallet-card.ts';
import * as repo from './digital-wallets.repo.ts';
import { configuredProfileId } from './paze-client.ts';
import { ecPrivateKey, rsaPrivateKey, walletSecrets } from './wallet-secrets.ts';

/**
 * The wallet token of a payment (`method: applepay | googlepay | paze`), as the merchant account's
 * wallet of that provider says (`token_decryption`, Apple and Google): decrypted here with the
 * merchant's own keys when configured, else in the sandbox with the sandbox's test keys
 * (sandbox-keys.ts); or, with `payment-service`, checked for shape only and passed on encrypted to a
 * payment service that holds the keys. A decrypted card lives in memory for the one authorization;
 * nothing of it is logged or stored here.
 */

const POINTER = '/payment_method/token';
const NAMES: Record<WalletProvider, string> = { apple: 'Apple Pay', google: 'Google Pay' };

const refuse = (message: string, type: string) => fieldRefusal('body', POINTER, message, type);

function appleRoots(config: Config): X509Certificate[] {
  const roots = [
    new X509Certificate(APPLE_ROOT_CA_G3),
    ...config.applePayRootCertificates.map((pem) => new X509Certificate(pem)),
  ];
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
async function recipientOf<P extends WalletProvider>(
  db: Executor,
  ctx: RequestContext,
  wallet: DigitalWalletRow,
  provider: P,
): Promise<Recipient[P]> {
  if (wallet.payment_processing_key_configured) {
    const secrets = await walletSecrets(db, ctx.deps, wallet);
    const privateKey = ecPrivateKey(secrets.payment_processing_private_key!, 'payment_processing_private_key');
    return (
      provider === 'apple'
        ? { privateKey, merchantIdentifier: wallet.apple_merchant_identifier! }
        : { privateKey, recipientId: `merchant:${wallet.google_merchant_id}` }
    ) as Recipient[P];
  }
  if (ctx.deps.config.environment !== 'sandbox') {
    throw refuse(
      `The ${provider} wallet has no payment processing key, so this server cannot decrypt ${NAMES[provider]} tokens: add payment_processing_private_key with PUT /digital-wallets/{id}, set token_decryption to payment-service to have a payment service that holds the keys decrypt them, or decrypt the token yourself and pay with method network-token`,
      'wallet_keys_missing',
    );
  }
  return sandboxRecipient(provider);
}

/** The sandbox's test keys of `provider` (sandbox-keys.ts). */
function sandboxRecipient<P extends WalletProvider>(provider: P): Recipient[P] {
  const sandbox = sandboxWalletKeys();
  return (
    provider === 'apple'
      ? { privateKey: sandbox.apple.processingKey, merchantIdentifier: sandbox.apple.merchantIdentifier }
      : { privateKey: sandbox.google.processingKey, recipientId: sandbox.google.recipientId }
  ) as Recipient[P];
}

/**
 * The public half of the key that decrypts the merchant account's tokens of `provider`, and the
 * identity tokens are made for (Apple merchant identifier, Google recipient id): what a wallet
 * encrypts to. The same choice as decryption (the wallet's own key, else the sandbox's), so a token
 * made for it is one this server decrypts; a wallet passing its tokens on has them decrypted by the
 * payment service, in the sandbox `mock-card` with the sandbox's keys.
 */
export async function recipientPublicKey(
  ctx: RequestContext,
  provider: WalletProvider,
): Promise<{ publicKey: KeyObject; id: string }> {
  const wallet = await repo.findWalletByProvider(ctx.deps.db, ctx.merchantAccountId, provider);
  if (!wallet)
    throw refuse(
      `No ${provider} digital wallet is registered for this merchant account: register one with POST /digital-wallets before accepting ${NAMES[provider]}`,
      'wallet_not_registered',
    );
  const recipient: AppleRecipient | GoogleRecipient =
    wallet.token_decryption === 'payment-service'
      ? sandboxRecipient(provider)
      : await recipientOf(ctx.deps.db, ctx, wallet, provider);
  return {
    publicKey: createPublicKey(recipient.privateKey),
    id: 'merchantIdentifier' in recipient ? recipient.merchantIdentifier : recipient.recipientId,
  };
}

async function decrypt(
  db: Executor,
  ctx: RequestContext,
  wallet: DigitalWalletRow,
  provider: WalletProvider,
  token: string | Record<string, unknown>,
): Promise<WalletCard> {
  const config = ctx.deps.config;
  const now = new Date();
  if (provider === 'apple') {
    if (typeof token !== 'object')
      throw new WalletTokenError(
        'malformed',
        'An Apple Pay token is the JSON object Apple Pay JS gives (payment.token)',
      );
    return decryptApplePayToken(token, await recipientOf(db, ctx, wallet, 'apple'), {
      roots: appleRoots(config),
      now,
      maxAgeSeconds: config.walletTokenMaxAgeSeconds,
    });
  }
  const roots = googleRoots(config);
  if (roots.length === 0)
    throw refuse(
      'Google Pay tokens cannot be verified: the server has no Google root signing keys (GOOGLE_PAY_ROOT_SIGNING_KEYS)',
      'wallet_keys_missing',
    );
  return decryptGooglePayToken(token, await recipientOf(db, ctx, wallet, 'google'), roots, now);
}

/** A token decrypted here (the card), or one to pass on encrypted to a payment service. */
export type ResolvedWalletToken =
  | { kind: 'decrypted'; card: WalletCard }
  | { kind: 'encrypted'; encrypted: EncryptedWalletToken };

/**
 * Verifies and decrypts the token, or checks it for passing on; a refused token is a 400 on
 * `payment_method.token` that says why. `db`: the caller's transaction (the wallet and its keys are
 * read in it).
 */
export async function resolveWalletToken(
  db: Executor,
  ctx: RequestContext,
  provider: WalletProvider,
  token: string | Record<string, unknown>,
): Promise<ResolvedWalletToken> {
  const wallet = await repo.findWalletByProvider(db, ctx.merchantAccountId, provider);
  if (!wallet)
    throw refuse(
      `No ${provider} digital wallet is registered for this merchant account: register one with POST /digital-wallets before accepting ${NAMES[provider]}`,
      'wallet_not_registered',
    );
  try {
    if (wallet.token_decryption === 'payment-service')
      return { kind: 'encrypted', encrypted: encryptedWalletToken(provider, token, new Date()) };
    return { kind: 'decrypted', card: await decrypt(db, ctx, wallet, provider, token) };
  } catch (error) {
    if (!(error instanceof WalletTokenError)) throw error;
    throw refuse(`The ${NAMES[provider]} token was refused: ${error.message}`, `wallet_token_${error.reason}`);
  }
}

/** Paze's signing keys (PAZE_SIGNING_KEYS), and in the sandbox the simulated Paze's. */
function pazeTrust(config: Config, now: Date): PazeTrust {
  const keys = config.pazeSigningKeys.map((k) => ({ kid: k.kid, key: createPublicKey(k.spki) }));
  if (config.environment === 'sandbox')
    keys.push({ kid: sandboxPazeKeys().signingKeyId, key: createPublicKey(sandboxPazeKeys().signingKey) });
  return { keys, now };
}

/** The Paze wallet's key (its own RSA key, else in the sandbox the sandbox's) and its configured profile. */
async function pazeRecipient(db: Executor, ctx: RequestContext): Promise<PazeRecipient> {
  const wallet = await repo.findWalletByProvider(db, ctx.merchantAccountId, 'paze');
  if (!wallet)
    throw refuse(
      'No paze digital wallet is registered for this merchant account: register one with POST /digital-wallets before accepting Paze',
      'wallet_not_registered',
    );
  const profileId = configuredProfileId(wallet);
  if (wallet.payment_processing_key_configured) {
    const secrets = await walletSecrets(db, ctx.deps, wallet);
    return {
      privateKey: rsaPrivateKey(secrets.payment_processing_private_key!, 'payment_processing_private_key'),
      profileId,
    };
  }
  if (ctx.deps.config.environment !== 'sandbox') {
    throw refuse(
      'The paze wallet has no payment processing key, so this server cannot decrypt Paze payloads: add payment_processing_private_key (the RSA key whose public key Paze encrypts to) with PUT /digital-wallets/{id}, or decrypt the payload yourself and pay with method network-token',
      'wallet_keys_missing',
    );
  }
  return { privateKey: sandboxPazeKeys().processingKey, profileId };
}

/**
 * Verifies and decrypts a Paze completeResponse (`method: paze`), and its checkout_token when
 * sent; a refusal is a 400 on the field that says why. `db`: the caller's transaction.
 */
export async function decryptPazeWalletToken(
  db: Executor,
  ctx: RequestContext,
  token: string,
  checkoutToken: string | null,
): Promise<WalletCard> {
  const recipient = await pazeRecipient(db, ctx);
  const trust = pazeTrust(ctx.deps.config, new Date());
  if (trust.keys.length === 0)
    throw refuse(
      'Paze tokens cannot be verified: the server has no Paze signing keys (PAZE_SIGNING_KEYS)',
      'wallet_keys_missing',
    );
  const refused =
    (pointer: string, what: string) =>
    (error: unknown): never => {
      if (!(error instanceof WalletTokenError)) throw error;
      throw fieldRefusal(
        'body',
        pointer,
        `The Paze ${what} was refused: ${error.message}`,
        `wallet_token_${error.reason}`,
      );
    };
  const card = await decryptPazeToken(token, recipient, trust).catch(refused(POINTER, 'token'));
  if (checkoutToken)
    await verifyPazeCheckoutToken(checkoutToken, trust, sessionIdOf(token)).catch(
      refused('/payment_method/checkout_token', 'checkout_token'),
    );
  return card;
}

/** A 400 `wallet_not_registered` on `pointer` unless the merchant account has a wallet of `provider` (Click to Pay payments). */
export async function requireWallet(
  db: Executor,
  ctx: RequestContext,
  provider: 'click-to-pay',
  pointer: string,
): Promise<void> {
  if (await repo.findWalletByProvider(db, ctx.merchantAccountId, provider)) return;
  throw fieldRefusal(
    'body',
    pointer,
    `No ${provider} digital wallet is registered for this merchant account: register one with POST /digital-wallets before accepting Click to Pay`,
    'wallet_not_registered',
  );
}
