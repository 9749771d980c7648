import type { ConnectorDefinition } from '../../connectors/connector.ts';
import { acceptanceProblem } from '../payment-services/acceptance.ts';
import type { PaymentOption, PaymentOptionContext } from './payment-options.schemas.ts';

/**
 * Which payment options a checkout shows. Pure: the caller loads the merchant account's active
 * services (ordered by position) with their connector definitions.
 */

export interface OptionCandidate {
  method: string;
  acceptedCurrencies: readonly string[];
  acceptedCountries: readonly string[];
  tokenizationEnabled: boolean;
  definition: ConnectorDefinition;
}

export interface OptionRequest {
  currency: string | null;
  country: string | null;
  cartItemCount: number | null;
}

/** Schemes a wallet option offers (the built-in card scheme catalogue's main ones). */
export const WALLET_SCHEMES = ['visa', 'mastercard', 'amex', 'discover'];
/** Gateway name a Google Pay integration is configured with for this platform. */
export const GOOGLE_PAY_GATEWAY = 'svc';
const METHOD_LABELS: Record<string, string> = {
  card: 'Card',
  applepay: 'Apple Pay',
  googlepay: 'Google Pay',
  'click-to-pay': 'Click to Pay',
  'gift-card': 'Gift card',
};
/** Modes that authorize first and capture later (an approval or a gift card redemption is immediate). */
const DELAYED_CAPTURE_MODES = new Set(['card', 'applepay', 'googlepay', 'click-to-pay']);

function accepts(candidate: OptionCandidate, request: OptionRequest): boolean {
  const { definition } = candidate;
  if (acceptanceProblem(candidate, request.currency, request.country)) return false;
  if (request.currency !== null && !definition.supportedCurrencies.includes(request.currency)) return false;
  const items = request.cartItemCount ?? 0;
  if (definition.configuration.cart_items_required && items === 0) return false;
  return items <= definition.configuration.cart_items_limit;
}

function contextOf(
  definition: ConnectorDefinition,
  merchantName: string,
  merchantAccountId: string,
): PaymentOptionContext {
  switch (definition.mode) {
    case 'googlepay':
      return {
        merchant_name: merchantName,
        supported_schemes: WALLET_SCHEMES,
        gateway: GOOGLE_PAY_GATEWAY,
        gateway_merchant_id: merchantAccountId,
      };
    case 'applepay':
    case 'click-to-pay':
      return { merchant_name: merchantName, supported_schemes: WALLET_SCHEMES };
    case 'redirect':
    case 'bank':
    case 'checkout-session': {
      const {
        approval_ui_height: height,
        approval_ui_width: width,
        approval_ui_target: target,
      } = definition.configuration;
      return {
        approval_ui: { height: height || null, width: width || null },
        redirect_requires_popup: target === 'new_window',
        requires_tokenized_redirect_popup: false,
      };
    }
    default:
      return null;
  }
}

function optionOf(candidate: OptionCandidate, merchantName: string, merchantAccountId: string): PaymentOption {
  const { definition } = candidate;
  return {
    type: 'payment-option',
    method: candidate.method,
    icon_url: definition.iconUrl,
    mode: definition.mode,
    label: METHOD_LABELS[candidate.method] ?? definition.displayName,
    // A card is stored in our vault; other methods only as a token at a service that allows it.
    can_store_payment_method:
      definition.mode === 'card' || (candidate.tokenizationEnabled && definition.capabilities.tokenize),
    can_delay_capture: DELAYED_CAPTURE_MODES.has(definition.mode),
    context: contextOf(definition, merchantName, merchantAccountId),
  };
}

/** One option per method, from the first accepting service by position. */
export function selectPaymentOptions(
  candidates: readonly OptionCandidate[],
  request: OptionRequest,
  merchant: { id: string; name: string },
): PaymentOption[] {
  const seen = new Set<string>();
  const options: PaymentOption[] = [];
  for (const candidate of candidates) {
    if (seen.has(candidate.method) || !accepts(candidate, request)) continue;
    seen.add(candidate.method);
    options.push(optionOf(candidate, merchant.name, merchant.id));
  }
  return options;
}

/** Whether any candidate's option needs the merchant's name (wallet contexts). */
export const needsMerchantName = (candidates: readonly OptionCandidate[]) =>
  candidates.some((c) => ['googlepay', 'applepay', 'click-to-pay'].includes(c.definition.mode));
