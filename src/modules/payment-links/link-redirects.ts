import type { RequestContext } from '../../context.ts';
import type { PaymentLinkRow } from '../../db/schema-payment-links.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import type { PaymentOption } from '../payment-options/payment-options.schemas.ts';
import { REDIRECT_METHODS } from '../transactions/create-transaction.schema.ts';
import { linkOptions } from './link-wallets.ts';

/**
 * Redirect methods the page cannot offer: PIX is paid with a code the page would have to show,
 * for a buyer whose CPF it does not collect (decision 0125; docs/connectors.md, "PIX and the
 * hosted page"); a link's buyer pays it through the API.
 */
const NOT_ON_THE_PAGE: ReadonlySet<string> = new Set(['pix']);

/** The options the page shows as redirect buttons: mode `redirect`, a redirect method, not excluded above. */
export const pageRedirectOptions = (options: readonly PaymentOption[]): PaymentOption[] =>
  options.filter(
    (o) =>
      o.mode === 'redirect' &&
      (REDIRECT_METHODS as readonly string[]).includes(o.method) &&
      !NOT_ON_THE_PAGE.has(o.method),
  );

/**
 * A redirect method sent to the page's payment endpoint must be one of the page's buttons: a
 * method the page does not show (PIX, or one no service takes for the link) is refused before
 * any transaction, as the wallets are (link-wallets.ts).
 */
export async function requireOfferedRedirect(ctx: RequestContext, link: PaymentLinkRow, method: string): Promise<void> {
  const offered = pageRedirectOptions(await linkOptions(ctx, link)).some((o) => o.method === method);
  if (offered) return;
  const market = link.country ? `${link.currency} in ${link.country}` : link.currency;
  const why = NOT_ON_THE_PAGE.has(method)
    ? `${method} is not paid on the hosted payment page (it shows no ${method} code and collects no tax id); pay it through POST /transactions`
    : `${method} is not offered for this payment link: no active payment service of the method accepts ${market}, or a checkout flow rule leaves it out (see POST /payment-options)`;
  throw fieldRefusal('body', '/method', why, 'payment_method_not_offered');
}
