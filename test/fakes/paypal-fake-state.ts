import { currencyExponent } from '../../src/lib/currencies.ts';
import type { FakeAnswer } from './fake-server.ts';

/**
 * The state of the local PayPal fake (paypal-fake.ts): orders, their authorizations, captures and
 * refunds, in PayPal's documented shapes (developer.paypal.com/docs/api/orders/v2,
 * /docs/api/payments/v2), and PayPal's error bodies (developer.paypal.com/api/rest/responses).
 */

export interface Money {
  currency_code: string;
  value: string;
}
export interface Resource {
  id: string;
  status: string;
  amount: Money;
  invoice_id?: string;
  custom_id?: string;
  final_capture?: boolean;
  status_details?: { reason: string };
  supplementary_data?: { related_ids: Record<string, string> };
  links: Array<{ href: string; rel: string; method: string }>;
  create_time: string;
}
export interface Order {
  id: string;
  intent: 'AUTHORIZE' | 'CAPTURE';
  status: 'CREATED' | 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED' | 'VOIDED';
  requestId: string;
  amount: Money;
  /** Our minor units of the order (outcomes are chosen by it). */
  minor: number;
  customId: string | null;
  shipping: unknown;
  returnUrl: string | null;
  cancelUrl: string | null;
  payerId: string | null;
  authorizations: Resource[];
  captures: Resource[];
  refunds: Resource[];
}

const NO_DECIMALS = new Set(['HUF', 'JPY', 'TWD']);

/** A PayPal `value` → minor units; null when its decimals are not PayPal's for the currency. */
export function minorOf(money: Partial<Money> | undefined): number | null {
  if (!money?.currency_code || typeof money.value !== 'string') return null;
  const decimals = NO_DECIMALS.has(money.currency_code) ? 0 : 2;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(money.value);
  if (!match || (match[2] ?? '').length !== decimals) return null;
  const iso = currencyExponent(money.currency_code);
  return Number(`${match[1]}${match[2] ?? ''}`) * 10 ** (iso - decimals);
}

/** Minor units → PayPal's value in `currency`. */
export function moneyOf(minor: number, currency: string): Money {
  const decimals = NO_DECIMALS.has(currency) ? 0 : 2;
  const units = minor / 10 ** (currencyExponent(currency) - decimals);
  const digits = String(units).padStart(decimals + 1, '0');
  return {
    currency_code: currency,
    value: decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits,
  };
}

let debug = 0;
/** PayPal's error body: name, message, debug_id, details with the issue. */
export function paypalError(
  status: number,
  name: string,
  issue: string | null,
  description = issue ?? name,
): FakeAnswer {
  debug += 1;
  return {
    status,
    json: {
      name,
      message:
        status === 422
          ? 'The requested action could not be performed, semantically incorrect, or failed business validation.'
          : status === 404
            ? 'The specified resource does not exist.'
            : 'Request is not well-formed, syntactically incorrect, or violates schema.',
      debug_id: `fd${String(debug).padStart(11, '0')}`,
      ...(issue ? { details: [{ issue, description }] } : {}),
      links: [
        { href: `https://developer.paypal.com/api/rest/reference/orders/v2/errors/#${issue}`, rel: 'information_link' },
      ],
    },
  };
}
export const unprocessable = (issue: string, description?: string) =>
  paypalError(422, 'UNPROCESSABLE_ENTITY', issue, description);
export const notFound = () =>
  paypalError(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.');

/** An order as GET /v2/checkout/orders/{id} answers it. */
export function orderView(order: Order, base: string): Record<string, unknown> {
  const waiting = order.status === 'CREATED' || order.status === 'PAYER_ACTION_REQUIRED';
  const payments = {
    ...(order.authorizations.length ? { authorizations: order.authorizations } : {}),
    ...(order.captures.length ? { captures: order.captures } : {}),
    ...(order.refunds.length ? { refunds: order.refunds } : {}),
  };
  return {
    id: order.id,
    intent: order.intent,
    status: order.status,
    payment_source: { paypal: order.payerId ? { account_id: order.payerId, email_address: 'buyer@example.com' } : {} },
    purchase_units: [
      {
        reference_id: 'default',
        amount: order.amount,
        ...(order.customId ? { custom_id: order.customId } : {}),
        ...(order.shipping ? { shipping: order.shipping } : {}),
        ...(Object.keys(payments).length ? { payments } : {}),
      },
    ],
    links: [
      { href: `${base}/v2/checkout/orders/${order.id}`, rel: 'self', method: 'GET' },
      ...(waiting ? [{ href: `${base}/checkoutnow?token=${order.id}`, rel: 'payer-action', method: 'GET' }] : []),
    ],
  };
}

/** POST /v2/payments/authorizations/{id}/void: the authorization, or PayPal's refusal. */
export function voidAuthorization(authorization: Resource): FakeAnswer {
  if (authorization.status === 'VOIDED') return unprocessable('PREVIOUSLY_VOIDED');
  if (authorization.status === 'CAPTURED') return unprocessable('PREVIOUSLY_CAPTURED');
  if (authorization.status === 'DENIED') return unprocessable('CANNOT_BE_VOIDED');
  authorization.status = 'VOIDED';
  return { status: 200, json: authorization };
}
