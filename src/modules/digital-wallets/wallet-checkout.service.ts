import type { RequestContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import { AppError } from '../../errors/app-error.ts';
import { GOOGLE_PAY_GATEWAY_ID } from '../../wallets/sandbox-keys.ts';
import { sandboxApplePayToken, sandboxGooglePayToken, type SandboxCard } from '../../wallets/sandbox-tokens.ts';
import * as repo from './digital-wallets.repo.ts';
import type { WalletProvider } from '../../wallets/token-use.ts';
import { recipientPublicKey } from './wallet-tokens.service.ts';

/**
 * What a hosted checkout (the payment link page) needs of the merchant account's Apple Pay or
 * Google Pay wallet: whether it can run the wallet in this environment, Google Pay's tokenization
 * parameters, and, in the sandbox, test tokens for its simulated wallet sheet
 * (docs/digital-wallets.md, "On the hosted payment page").
 */

export interface CheckoutWallet {
  provider: WalletProvider;
  /** The name the wallet's sheet shows. */
  displayName: string;
  /** The merchant's country (ISO 3166-1 alpha-2) if the wallet names it. */
  countryCode: string | null;
  googleMerchantId: string | null;
  /** Why a production checkout cannot run this wallet (null: it can; always null in the sandbox). */
  problem: string | null;
}

function appleProblem(wallet: DigitalWalletRow, pageHost: string): string | null {
  if (!wallet.payment_processing_key_configured || !wallet.apple_merchant_identifier)
    return 'the Apple Pay wallet has no payment_processing_private_key and apple_merchant_identifier to decrypt tokens with';
  if (!wallet.identity_certificate_expires_at || wallet.identity_certificate_expires_at <= new Date())
    return 'the Apple Pay wallet has no valid merchant identity certificate for merchant sessions';
  if (!wallet.domain_names.includes(pageHost))
    return `${pageHost} (the host of PUBLIC_URL) is not a domain of the Apple Pay wallet`;
  return null;
}

function googleProblem(wallet: DigitalWalletRow, config: Config): string | null {
  // In production only DIRECT tokenization works: no Google Pay gateway holds keys for this server.
  if (!wallet.payment_processing_key_configured || !wallet.google_merchant_id)
    return 'the Google Pay wallet has no payment_processing_private_key and google_merchant_id (DIRECT tokenization)';
  if (!config.googlePayAuthPrivateKey) return 'GOOGLE_PAY_AUTH_PRIVATE_KEY is not configured (merchantInfo.authJwt)';
  if (config.googlePayRootSigningKeys.length === 0)
    return 'GOOGLE_PAY_ROOT_SIGNING_KEYS is not configured (token verification)';
  return null;
}

/** The merchant account's wallet of `provider` as a checkout on `pageHost` sees it, or null when none is registered. */
export async function checkoutWallet(
  ctx: RequestContext,
  provider: WalletProvider,
  pageHost: string,
): Promise<CheckoutWallet | null> {
  const wallet = await repo.findWalletByProvider(ctx.deps.db, ctx.merchantAccountId, provider);
  if (!wallet) return null;
  const production = ctx.deps.config.environment === 'production';
  const problem = !production
    ? null
    : provider === 'apple'
      ? appleProblem(wallet, pageHost)
      : googleProblem(wallet, ctx.deps.config);
  return {
    provider,
    displayName: wallet.merchant_display_name ?? wallet.merchant_name,
    countryCode: wallet.merchant_country_code,
    googleMerchantId: wallet.google_merchant_id,
    problem,
  };
}

export type GoogleTokenization =
  | { type: 'DIRECT'; parameters: { protocolVersion: 'ECv2'; publicKey: string } }
  | { type: 'PAYMENT_GATEWAY'; parameters: { gateway: string; gatewayMerchantId: string } };

/**
 * Google Pay's `tokenizationSpecification`, consistent with decryption: a wallet with its own
 * processing key gets DIRECT tokens encrypted to that key (its uncompressed public point, base64, as
 * Google asks); without one, the sandbox gateway (`svc`, the merchant account as gatewayMerchantId,
 * as in payment options), whose tokens the sandbox keys decrypt.
 */
export async function googleTokenization(ctx: RequestContext): Promise<GoogleTokenization> {
  const wallet = await repo.findWalletByProvider(ctx.deps.db, ctx.merchantAccountId, 'google');
  if (!wallet?.payment_processing_key_configured)
    return {
      type: 'PAYMENT_GATEWAY',
      parameters: { gateway: GOOGLE_PAY_GATEWAY_ID, gatewayMerchantId: ctx.merchantAccountId },
    };
  const { publicKey } = await recipientPublicKey(ctx, 'google');
  const jwk = publicKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return { type: 'DIRECT', parameters: { protocolVersion: 'ECv2', publicKey: point.toString('base64') } };
}

/**
 * A sandbox test token for `card`, made as a device would for this merchant account: signed by the
 * sandbox chain (trusted only with ENVIRONMENT=sandbox) and encrypted to the key this server will
 * decrypt it with (the wallet's own processing key if it has one, else the sandbox's), so the
 * payment runs the merchant's real decryption configuration. Never made outside the sandbox.
 */
export async function sandboxCheckoutToken(
  ctx: RequestContext,
  provider: WalletProvider,
  card: SandboxCard & { authMethod?: 'CRYPTOGRAM_3DS' | 'PAN_ONLY' },
): Promise<Record<string, unknown>> {
  if (ctx.deps.config.environment !== 'sandbox')
    throw new AppError('not_found', 'Sandbox wallet tokens exist in the sandbox environment only');
  const recipient = await recipientPublicKey(ctx, provider);
  if (provider === 'apple') return sandboxApplePayToken(card, new Date(), recipient);
  return sandboxGooglePayToken({ ...card, gatewayMerchantId: ctx.merchantAccountId }, new Date(), recipient);
}
