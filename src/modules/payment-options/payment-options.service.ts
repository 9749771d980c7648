import type { RequestContext } from '../../context.ts';
import { getMerchantAccount } from '../merchant-accounts/merchant-accounts.service.ts';
import { listRoutablePaymentServices } from '../payment-services/payment-services.service.ts';
import { needsMerchantName, selectPaymentOptions, type OptionCandidate } from './payment-options.ts';
import type { PaymentOptionRequestBody, PaymentOptions } from './payment-options.schemas.ts';

/** The active services of the merchant account whose connector this process has, by position. */
async function candidatesOf(ctx: RequestContext): Promise<OptionCandidate[]> {
  const services = await listRoutablePaymentServices(ctx.deps.db, ctx.merchantAccountId);
  const candidates: OptionCandidate[] = [];
  for (const service of services) {
    const connector = ctx.deps.connectors.find(service.payment_service_definition_id);
    if (!connector) continue;
    candidates.push({
      method: service.method,
      acceptedCurrencies: service.accepted_currencies,
      acceptedCountries: service.accepted_countries,
      tokenizationEnabled: service.payment_method_tokenization_enabled,
      definition: connector.definition,
    });
  }
  return candidates;
}

/** The methods a checkout can offer for this amount, currency, country and cart. Read-only. */
export async function findPaymentOptions(ctx: RequestContext, body: PaymentOptionRequestBody): Promise<PaymentOptions> {
  const candidates = await candidatesOf(ctx);
  const name = needsMerchantName(candidates) ? (await getMerchantAccount(ctx, ctx.merchantAccountId)).display_name : '';
  const request = { currency: body.currency ?? null, country: body.country ?? null, cartItemCount: body.cart_items?.length ?? null };
  return { items: selectPaymentOptions(candidates, request, { id: ctx.merchantAccountId, name }) };
}
