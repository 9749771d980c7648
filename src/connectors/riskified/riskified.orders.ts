import { currencyExponent } from '../../lib/currencies.ts';
import type { AntiFraudOrder } from '../anti-fraud/anti-fraud-connector.ts';

/**
 * The Riskified Order model (apiref.riskified.com, "Models: Order", "Payment Details", "Customer")
 * built from what we know before the authorization. Riskified never receives the card number:
 * only its BIN, last four digits and brand. `total_price` is a decimal in the currency's major units.
 */
export function riskifiedOrder(order: AntiFraudOrder): { order: Record<string, unknown> } {
  const exponent = currencyExponent(order.currency);
  const card = order.card;
  const buyer = order.buyer;
  return {
    order: {
      id: order.transactionId,
      created_at: order.createdAt.toISOString(),
      currency: order.currency,
      total_price: (order.amount / 10 ** exponent).toFixed(exponent),
      email: buyer?.emailAddress ?? null,
      browser_ip: order.ipAddress,
      cart_token: order.fingerprint,
      source: 'web',
      gateway: order.method,
      customer: buyer
        ? {
            id: buyer.externalIdentifier,
            email: buyer.emailAddress,
            first_name: buyer.firstName,
            last_name: buyer.lastName,
          }
        : null,
      billing_address: order.country ? { country_code: order.country } : null,
      line_items: lineItems(order),
      payment_details: card
        ? [
            {
              // Riskified's BIN is the first six digits; our instrument may keep eight.
              credit_card_bin: card.bin?.slice(0, 6) ?? null,
              credit_card_number: card.last4 ? `XXXX-XXXX-XXXX-${card.last4}` : null,
              credit_card_company: card.scheme,
            },
          ]
        : [],
    },
  };
}

/** The client's `line_items` options (delivered_to) when given; else one line for the whole amount. */
function lineItems(order: AntiFraudOrder): unknown[] {
  const given = order.options?.line_items;
  const exponent = currencyExponent(order.currency);
  const price = (order.amount / 10 ** exponent).toFixed(exponent);
  const first = Array.isArray(given) && given.length > 0 ? (given[0] as { delivered_to?: unknown }) : null;
  return [{ title: 'Order', price, quantity: 1, ...(first?.delivered_to ? { delivered_to: first.delivered_to } : {}) }];
}
