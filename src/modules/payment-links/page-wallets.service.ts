import type { RequestContext } from '../../context.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import { googleTokenization, sandboxCheckoutToken } from '../digital-wallets/wallet-checkout.service.ts';
import { createApplePaySession, createGooglePaySession } from '../digital-wallets/wallet-sessions.service.ts';
import { payableLink } from './link-payment.service.ts';
import { pageHost, requireOfferedWallet, type WalletMethod } from './link-wallets.ts';
import { SANDBOX_WALLET_EXPIRY, sandboxWalletCard } from './page/sandbox-wallet-cards.ts';
import { googlePaymentDataRequest, type GooglePaymentDataRequest } from './page/wallet-requests.ts';

/**
 * The hosted page's wallet calls (docs/payment-links.md, "Apple Pay and Google Pay"). Each needs a
 * payable link that offers the wallet. The payment itself goes through `POST /pay/{m}/{id}/payments`
 * with `method: applepay | googlepay` and the token, like any wallet payment of `POST /transactions`.
 */

const LINK = { location: 'path', pointer: '/payment_link_id' } as const;

/**
 * `POST /pay/{m}/{id}/wallet-tokens` (sandbox): the simulated wallet sheet's card as a real sandbox
 * token for this merchant account (wallet-checkout.service.ts, sandboxCheckoutToken).
 */
export async function mintPageWalletToken(
  ctx: RequestContext,
  id: string,
  body: { method: WalletMethod; card: string },
): Promise<{ token: Record<string, unknown> }> {
  const link = await payableLink(ctx, id);
  await requireOfferedWallet(ctx, link, body.method, { location: 'body', pointer: '/method' });
  const card = sandboxWalletCard(body.card)!;
  if (card.panOnly && body.method === 'applepay')
    throw fieldRefusal(
      'body',
      '/card',
      `${card.id} is a Google Pay card number without cryptogram (PAN_ONLY); Apple Pay tokens always hold a device token: choose another card`,
    );
  const provider = body.method === 'applepay' ? 'apple' : 'google';
  const token = await sandboxCheckoutToken(ctx, provider, {
    number: card.number,
    expirationDate: SANDBOX_WALLET_EXPIRY,
    amount: link.amount,
    currency: link.currency,
    ...(card.panOnly ? { authMethod: 'PAN_ONLY' as const } : {}),
  });
  return { token };
}

/**
 * `POST /pay/{m}/{id}/apple-pay/session`: Apple Pay JS's onvalidatemerchant. The domain is the
 * page's host, which must be a domain of the wallet (createApplePaySession refuses it otherwise).
 */
export async function startPageApplePaySession(
  ctx: RequestContext,
  id: string,
  validationUrl: string,
): Promise<Record<string, unknown>> {
  const link = await payableLink(ctx, id);
  await requireOfferedWallet(ctx, link, 'applepay', LINK);
  return createApplePaySession(ctx, { validation_url: validationUrl, domain_name: pageHost(ctx.deps.config) });
}

export interface PageGooglePaySession {
  environment: 'TEST' | 'PRODUCTION';
  payment_data_request: GooglePaymentDataRequest;
}

/** `POST /pay/{m}/{id}/google-pay/session`: the PaymentDataRequest for pay.js, with a fresh authJwt for the page's host. */
export async function startPageGooglePaySession(ctx: RequestContext, id: string): Promise<PageGooglePaySession> {
  const link = await payableLink(ctx, id);
  const offered = await requireOfferedWallet(ctx, link, 'googlepay', LINK);
  const host = pageHost(ctx.deps.config);
  const session = await createGooglePaySession(ctx, { origin_domain: host });
  const request = googlePaymentDataRequest({
    link,
    wallet: offered.wallet,
    schemes: offered.schemes,
    tokenization: await googleTokenization(ctx),
    pageHost: host,
    authJwt: session.token,
  });
  return {
    environment: ctx.deps.config.environment === 'production' ? 'PRODUCTION' : 'TEST',
    payment_data_request: request,
  };
}
