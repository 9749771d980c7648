import type { RequestContext } from '../../context.ts';
import { registeredProviders } from '../digital-wallets/digital-wallets.service.ts';
import { getMerchantAccount } from '../merchant-accounts/merchant-accounts.service.ts';
import { listRoutablePaymentServices } from '../payment-services/payment-services.service.ts';
import { needsMerchantName, selectPaymentOptions, type OptionCandidate } from './payment-options.ts';
import type { PaymentOptionRequestBody, PaymentOptions } from './payment-options.schemas.ts';
import { firstMatch } from '../flows/flow-decisions.ts';
import type { FlowFacts } from '../flows/rule-conditions.ts';

/** The active services of the merchant account whose connector this process has, by position. */
async function candidatesOf(ctx: RequestContext): Promise<OptionCandidate[]> {
  const services = await listRoutablePaymentServices(ctx.deps.db, ctx.deps, ctx.merchantAccountId);
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
  return [...candidates, ...(await walletCandidates(ctx, candidates))];
}

/** The payment option of each wallet provider. Paze has none: no payment option mode names it (docs/digital-wallets.md). */
const WALLET_METHODS: Partial<Record<string, 'applepay' | 'googlepay' | 'click-to-pay'>> = {
  apple: 'applepay',
  google: 'googlepay',
  'click-to-pay': 'click-to-pay',
};

/**
 * Apple Pay, Google Pay and Click to Pay are offered when the merchant account registered the
 * wallet and a card service that can pay its tokens accepts the request (docs/digital-wallets.md):
 * tokens decrypted here are paid as network tokens (or cards), so by a service whose connector takes
 * network tokens; Apple and Google tokens passed on encrypted, by a service whose connector decrypts
 * that wallet's tokens.
 */
async function walletCandidates(ctx: RequestContext, candidates: OptionCandidate[]): Promise<OptionCandidate[]> {
  const cardServices = candidates.filter((c) => c.method === 'card');
  if (cardServices.length === 0) return [];
  const wallets = await registeredProviders(ctx);
  return wallets.flatMap(({ provider, tokenDecryption }) => {
    const method = WALLET_METHODS[provider];
    if (!method) return [];
    const passedOn = tokenDecryption === 'payment-service' && (provider === 'apple' || provider === 'google');
    const able = cardServices.filter((c) =>
      passedOn
        ? c.definition.capabilities.encryptedWalletTokens?.includes(provider as 'apple' | 'google')
        : c.definition.capabilities.networkTokens,
    );
    return able.map((c) => ({
      ...c,
      method,
      tokenizationEnabled: false,
      definition: { ...c.definition, mode: method },
    }));
  });
}

/** What the checkout flow's rules know about this request. */
const checkoutFacts = (body: PaymentOptionRequestBody): FlowFacts => ({
  amount: body.amount ?? null,
  currency: body.currency ?? null,
  country: body.country ?? null,
  method: null,
  scheme: null,
  bin: null,
  issuerCountry: null,
  paymentSource: null,
  merchantInitiated: false,
  isSubsequentPayment: false,
  metadata: body.metadata ?? null,
  buyerExternalIdentifier: body.buyer_external_identifier ?? null,
  antiFraudDecision: null,
  threeDSecureStatus: null,
});

/**
 * The methods a checkout can offer for this amount, currency, country and cart. Read-only. A
 * matching `select-payment-options` rule of the checkout flow keeps the methods it lists, in its order.
 */
export async function findPaymentOptions(ctx: RequestContext, body: PaymentOptionRequestBody): Promise<PaymentOptions> {
  const [candidates, rules] = await Promise.all([
    candidatesOf(ctx),
    ctx.deps.flowRules.rules(ctx.merchantAccountId, 'checkout', 'select-payment-options'),
  ]);
  const name = needsMerchantName(candidates) ? (await getMerchantAccount(ctx, ctx.merchantAccountId)).display_name : '';
  const request = {
    currency: body.currency ?? null,
    country: body.country ?? null,
    cartItemCount: body.cart_items?.length ?? null,
  };
  const options = selectPaymentOptions(candidates, request, { id: ctx.merchantAccountId, name });
  const rule = firstMatch(rules, checkoutFacts(body));
  if (!rule) return { items: options };
  const chosen = (rule.outcome.payment_options as string[] | undefined) ?? [];
  return { items: chosen.flatMap((method) => options.filter((o) => o.method === method)) };
}
