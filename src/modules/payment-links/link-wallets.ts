import type { RequestContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import type { PaymentLinkRow } from '../../db/schema-payment-links.ts';
import { fieldRefusal, type ErrorLocation } from '../../errors/app-error.ts';
import { checkoutWallet, type CheckoutWallet } from '../digital-wallets/wallet-checkout.service.ts';
import { findPaymentOptions } from '../payment-options/payment-options.service.ts';
import type { PaymentOption, PaymentOptionRequestBody } from '../payment-options/payment-options.schemas.ts';

/**
 * Apple Pay and Google Pay on the hosted page. Whether a link offers a wallet is the payment
 * options' rule (a registered wallet and an active card service taking network tokens that accepts
 * the link's currency and country, then the checkout flow's `select-payment-options` rules), not a
 * copy of it. A production page also needs the wallet configured for the web (checkoutWallet).
 */

export const WALLET_METHODS = ['applepay', 'googlepay'] as const;
export type WalletMethod = (typeof WALLET_METHODS)[number];
export const isWalletMethod = (method: string | null | undefined): method is WalletMethod =>
  method === 'applepay' || method === 'googlepay';

const PROVIDERS = { applepay: 'apple', googlepay: 'google' } as const;
export const WALLET_NAMES: Record<WalletMethod, string> = { applepay: 'Apple Pay', googlepay: 'Google Pay' };

/** The host the page is served on (PUBLIC_URL): Apple Pay's domain, Google Pay's merchant origin. */
export const pageHost = (config: Config) => new URL(config.publicUrl).hostname.toLowerCase();

/** The payment options for the link's amount, currency, country and cart. */
export async function linkOptions(ctx: RequestContext, link: PaymentLinkRow): Promise<PaymentOption[]> {
  const cartItems = (link.cart_items as PaymentOptionRequestBody['cart_items']) ?? null;
  return (
    await findPaymentOptions(ctx, {
      amount: link.amount,
      currency: link.currency,
      country: link.country,
      cart_items: cartItems,
    })
  ).items;
}

export interface OfferedWallet {
  method: WalletMethod;
  label: string;
  /** The option context's supported schemes. */
  schemes: string[];
  wallet: CheckoutWallet;
}

/** A link that stores the payment method (`store: true`) takes only options that can store one: not wallet tokens. */
const storable = (link: PaymentLinkRow, option: PaymentOption) => !link.store || option.can_store_payment_method;

const schemesOf = (option: PaymentOption) =>
  option.context && 'supported_schemes' in option.context ? option.context.supported_schemes : [];

async function offered(ctx: RequestContext, option: PaymentOption): Promise<OfferedWallet | null> {
  if (!isWalletMethod(option.method)) return null;
  const wallet = await checkoutWallet(ctx, PROVIDERS[option.method], pageHost(ctx.deps.config));
  return (
    wallet && {
      method: option.method,
      label: option.label ?? WALLET_NAMES[option.method],
      schemes: schemesOf(option),
      wallet,
    }
  );
}

/**
 * The wallet buttons of the page: the wallet options, less those this environment cannot run (a
 * production wallet without its web configuration: a button whose every payment fails helps no
 * buyer). Those are logged, without the link, so the operator can see why a button is missing.
 */
export async function pageWallets(
  ctx: RequestContext,
  link: PaymentLinkRow,
  options: PaymentOption[],
): Promise<OfferedWallet[]> {
  const wallets: OfferedWallet[] = [];
  for (const option of options.filter((o) => storable(link, o))) {
    const found = await offered(ctx, option);
    if (found?.wallet.problem)
      ctx.log.info(
        { method: found.method, problem: found.wallet.problem },
        'payment page leaves out a wallet it cannot run',
      );
    else if (found) wallets.push(found);
  }
  return wallets;
}

/** The wallet for one of the page's calls, or a 400 saying why the link does not offer it. */
export async function requireOfferedWallet(
  ctx: RequestContext,
  link: PaymentLinkRow,
  method: WalletMethod,
  where: { location: ErrorLocation; pointer: string },
): Promise<OfferedWallet> {
  const name = WALLET_NAMES[method];
  const wallet = await checkoutWallet(ctx, PROVIDERS[method], pageHost(ctx.deps.config));
  if (!wallet)
    throw fieldRefusal(
      where.location,
      where.pointer,
      `No ${name} wallet is registered for this merchant account: register one with POST /digital-wallets`,
      'wallet_not_registered',
    );
  const option = (await linkOptions(ctx, link)).find((o) => o.method === method);
  if (!option) {
    const market = link.country ? `${link.currency} in ${link.country}` : link.currency;
    throw fieldRefusal(
      where.location,
      where.pointer,
      `${name} is not offered for this payment link: no active card service taking network tokens accepts ${market}, or a checkout flow rule leaves it out (see POST /payment-options)`,
      'payment_method_not_offered',
    );
  }
  if (!storable(link, option))
    throw fieldRefusal(
      where.location,
      where.pointer,
      `${name} is not offered for this payment link: it stores the payment method (store: true), and a wallet token cannot be stored`,
      'payment_method_not_offered',
    );
  if (wallet.problem)
    throw fieldRefusal(
      where.location,
      where.pointer,
      `${name} cannot be used on the payment page: ${wallet.problem}`,
      'wallet_not_configured',
    );
  return { method, label: option.label ?? name, schemes: schemesOf(option), wallet };
}
