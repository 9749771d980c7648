import { createPrivateKey } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Deps, RequestContext } from '../../context.ts';
import type { DigitalWalletProvider, DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import { AppError, fieldRefusal, notFound } from '../../errors/app-error.ts';
import { resolveCheckoutSession } from '../checkout-sessions/checkout-sessions.service.ts';
import { sandboxWalletKeys, SANDBOX_APPLE_MERCHANT_IDENTIFIER } from '../../wallets/sandbox-keys.ts';
import { checkValidationUrl, requestMerchantSession, simulatedMerchantSession } from './apple-merchant-session.ts';
import * as repo from './digital-wallets.repo.ts';
import { walletSecrets } from './wallet-secrets.ts';
import type {
  ApplePaySessionBody,
  ClickToPaySession,
  ClickToPaySessionBody,
  GooglePaySessionBody,
} from './wallet-sessions.schemas.ts';

/** The merchant account's wallet of a provider, or a 400 that says to register one. */
export async function walletOf(ctx: RequestContext, provider: DigitalWalletProvider): Promise<DigitalWalletRow> {
  const wallet = await repo.findWalletByProvider(ctx.deps.db, ctx.merchantAccountId, provider);
  if (!wallet)
    throw new AppError(
      'bad_request',
      `No ${provider} digital wallet is registered for this merchant account: register one with POST /digital-wallets first`,
    );
  return wallet;
}

/** `POST /digital-wallets/apple/session`: Apple's merchant session (simulated in the sandbox), passed through. */
export async function createApplePaySession(
  ctx: RequestContext,
  body: ApplePaySessionBody,
): Promise<Record<string, unknown>> {
  const wallet = await walletOf(ctx, 'apple');
  checkValidationUrl(body.validation_url);
  const domain = body.domain_name.toLowerCase();
  if (!wallet.domain_names.includes(domain))
    throw fieldRefusal(
      'body',
      '/domain_name',
      `${domain} is not a domain of the Apple Pay wallet: add it with POST /digital-wallets/${wallet.id}/domains (and host Apple's domain association file on it)`,
    );
  const sandbox = ctx.deps.config.environment === 'sandbox';
  const merchantIdentifier = wallet.apple_merchant_identifier ?? (sandbox ? SANDBOX_APPLE_MERCHANT_IDENTIFIER : null);
  if (!merchantIdentifier)
    throw fieldRefusal(
      'body',
      '/validation_url',
      'The Apple Pay wallet has no apple_merchant_identifier: set it with PUT /digital-wallets/{id}',
    );
  const request = {
    validationUrl: body.validation_url,
    domainName: domain,
    merchantIdentifier,
    displayName: wallet.merchant_display_name ?? wallet.merchant_name,
    walletId: wallet.id,
  };
  if (sandbox) return simulatedMerchantSession(request, new Date());
  if (!wallet.identity_certificate_expires_at)
    throw new AppError(
      'bad_request',
      'The Apple Pay wallet has no merchant identity certificate: add merchant_identity_certificate and merchant_identity_private_key with PUT /digital-wallets/{id}',
    );
  if (wallet.identity_certificate_expires_at <= new Date())
    throw new AppError(
      'bad_request',
      'The Apple Pay merchant identity certificate has expired: upload a renewed one with PUT /digital-wallets/{id}',
    );
  const secrets = await walletSecrets(ctx.deps.db, ctx.deps, wallet);
  return requestMerchantSession(request, {
    cert: secrets.merchant_identity_certificate!,
    key: secrets.merchant_identity_private_key!,
  });
}

/** The key that signs Google Pay session tokens: GOOGLE_PAY_AUTH_PRIVATE_KEY, else the sandbox's. */
function googleAuthKey(deps: Deps) {
  if (deps.config.googlePayAuthPrivateKey) return createPrivateKey(deps.config.googlePayAuthPrivateKey);
  if (deps.config.environment === 'sandbox') return sandboxWalletKeys().google.authKey;
  throw new AppError(
    'bad_request',
    'Google Pay sessions are not configured on this server (GOOGLE_PAY_AUTH_PRIVATE_KEY)',
  );
}

/**
 * `POST /digital-wallets/google/session`: the gateway merchant id for the Google Pay request and a
 * short-lived JWT (ES256) naming the origin, for `merchantInfo.authJwt`.
 */
export async function createGooglePaySession(
  ctx: RequestContext,
  body: GooglePaySessionBody,
): Promise<{ gateway_merchant_id: string; token: string }> {
  const wallet = await walletOf(ctx, 'google');
  const gatewayMerchantId = ctx.merchantAccountId;
  const token = await new SignJWT({
    merchantOrigin: body.origin_domain.toLowerCase(),
    merchantId: wallet.google_merchant_id ?? gatewayMerchantId,
    gatewayMerchantId,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(googleAuthKey(ctx.deps));
  return { gateway_merchant_id: gatewayMerchantId, token };
}

/**
 * `POST /digital-wallets/click-to-pay/session`: no bearer token; the checkout session names the
 * merchant account, whose Click to Pay wallet answers with its digital payment application.
 */
export async function createClickToPaySession(deps: Deps, body: ClickToPaySessionBody): Promise<ClickToPaySession> {
  const session = await resolveCheckoutSession(deps, body.checkout_session_id);
  if (!session || session.expiresAt.getTime() <= Date.now())
    throw notFound('checkout session', body.checkout_session_id);
  const wallet = await repo.findWalletByProvider(deps.db, session.merchantAccountId, 'click-to-pay');
  const fields = wallet?.fields as Partial<ClickToPaySession> | null | undefined;
  if (!fields?.digital_payment_application_id)
    throw new AppError('bad_request', 'The merchant account of this checkout session has no Click to Pay wallet');
  return {
    digital_payment_application_id: fields.digital_payment_application_id,
    digital_payment_application_name: fields.digital_payment_application_name ?? wallet!.merchant_name,
  };
}
