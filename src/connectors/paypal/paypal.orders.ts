import { ConnectorError, type AuthorizeRequest } from '../connector.ts';
import { fromPaypalValue, toPaypalMoney } from './paypal.amounts.ts';

/** The parts of PayPal's Orders v2 and Payments v2 resources we read (developer.paypal.com/docs/api/orders/v2). */
export interface PaypalLink {
  href?: string;
  rel?: string;
  method?: string;
}
export interface PaypalMoney {
  currency_code?: string;
  value?: string;
}
export interface PaypalPaymentResource {
  id?: string;
  status?: string;
  amount?: PaypalMoney;
  invoice_id?: string;
  custom_id?: string;
  status_details?: { reason?: string };
  links?: PaypalLink[];
  supplementary_data?: { related_ids?: { order_id?: string; authorization_id?: string; capture_id?: string } };
}
export interface PaypalOrder {
  id?: string;
  status?: string;
  intent?: string;
  links?: PaypalLink[];
  /** The payer's PayPal account once the buyer approved (Orders v2 `payment_source.paypal`). */
  payment_source?: { paypal?: { account_id?: string; email_address?: string } };
  purchase_units?: Array<{
    custom_id?: string;
    payments?: {
      authorizations?: PaypalPaymentResource[];
      captures?: PaypalPaymentResource[];
      refunds?: PaypalPaymentResource[];
    };
  }>;
}

/** The order's payments (its single purchase unit's). */
export function paymentsOf(order: PaypalOrder) {
  const payments = order.purchase_units?.[0]?.payments ?? {};
  return {
    authorizations: payments.authorizations ?? [],
    captures: payments.captures ?? [],
    refunds: payments.refunds ?? [],
  };
}

/** The buyer's page of a new order: `payer-action` with a `payment_source.paypal` request, `approve` in older answers. */
export function approvalUrlOf(order: PaypalOrder): string | null {
  const link = order.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve');
  return link?.href && /^https?:\/\//.test(link.href) ? link.href : null;
}

/** The id a link of rel `up` points to (a refund's capture), from the last segment of its href. */
export function upIdOf(resource: PaypalPaymentResource): string | null {
  const href = resource.links?.find((l) => l.rel === 'up')?.href;
  return href ? (href.split('/').filter(Boolean).at(-1) ?? null) : null;
}

/** Our minor units of a PayPal money object, or null. */
export function minorOf(money: PaypalMoney | undefined): number | null {
  return money?.currency_code ? fromPaypalValue(money.value, money.currency_code) : null;
}

/** Where PayPal sends the buyer back: our return route for this attempt (and the same with the cancel marker). */
export function returnUrlOf(request: AuthorizeRequest): string {
  return `${request.approvalBaseUrl}/connector-returns/${encodeURIComponent(request.merchantAccountId ?? '')}/${request.idempotencyKey}`;
}
/** The query parameter our cancel_url carries: the buyer chose "Cancel and return" at PayPal. */
export const CANCEL_MARKER = 'paypal_cancel';

interface ShippingOption {
  id: string;
  label: string;
  selected: boolean;
  type?: string | null;
  amount?: { currency_code: string; value: string } | null;
}

const SHIPPING_TYPES = new Set(['SHIPPING', 'PICKUP', 'PICKUP_IN_STORE', 'PICKUP_FROM_PERSON']);
const invalidOptions = (why: string) =>
  new ConnectorError('invalid_request', `connection_options.paypal-paypal.shipping: ${why}`);

/**
 * The `PaypalShippingOptions` of the transaction's connection options as PayPal's
 * `purchase_units[].shipping.options`. PayPal requires exactly one selected option and the selected
 * option's amount in the amount breakdown; a malformed entry is our request being wrong.
 */
export function shippingOptionsOf(options: Record<string, unknown> | null, currency: string): ShippingOption[] | null {
  const shipping = options?.shipping as { options?: unknown } | null | undefined;
  const list = shipping?.options;
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list) || list.length === 0 || list.length > 10)
    throw invalidOptions('options must be a list of 1 to 10 options');
  const parsed = list.map((raw) => {
    const o = (raw ?? {}) as Partial<ShippingOption>;
    if (typeof o.id !== 'string' || !o.id || o.id.length > 127) throw invalidOptions('each option needs an id');
    if (typeof o.label !== 'string' || !o.label || o.label.length > 127)
      throw invalidOptions('each option needs a label');
    if (typeof o.selected !== 'boolean') throw invalidOptions('each option needs selected (true or false)');
    if (o.type != null && !SHIPPING_TYPES.has(o.type)) throw invalidOptions(`unknown type ${String(o.type)}`);
    if (o.amount != null && (o.amount.currency_code !== currency || fromPaypalValue(o.amount.value, currency) === null))
      throw invalidOptions(`the amount of option ${o.id} must be a decimal value in ${currency}`);
    return {
      id: o.id,
      label: o.label,
      selected: o.selected,
      ...(o.type ? { type: o.type } : {}),
      ...(o.amount ? { amount: o.amount } : {}),
    };
  });
  if (new Set(parsed.map((o) => o.id)).size !== parsed.length) throw invalidOptions('option ids must be unique');
  if (parsed.filter((o) => o.selected).length !== 1) throw invalidOptions('exactly one option must be selected');
  return parsed;
}

/** The amount of the order: with a selected shipping option's price, split into items and shipping. */
function amountOf(request: AuthorizeRequest, options: ShippingOption[] | null) {
  const money = toPaypalMoney(request.amount, request.currency);
  const selected = options?.find((o) => o.selected)?.amount;
  if (!selected) return money;
  const shipping = fromPaypalValue(selected.value, request.currency)!;
  if (shipping > request.amount) throw invalidOptions('the selected option costs more than the transaction amount');
  return {
    ...money,
    breakdown: {
      item_total: toPaypalMoney(request.amount - shipping, request.currency),
      shipping: toPaypalMoney(shipping, request.currency),
    },
  };
}

/** `POST /v2/checkout/orders`: one purchase unit, the buyer sent to PayPal and back to our return route. */
export function orderBody(request: AuthorizeRequest): Record<string, unknown> {
  const options = shippingOptionsOf(request.options, request.currency);
  const returnUrl = returnUrlOf(request);
  const payee = request.credentials.merchant_id?.trim();
  return {
    intent: request.intent === 'capture' ? 'CAPTURE' : 'AUTHORIZE',
    purchase_units: [
      {
        reference_id: request.reference,
        // Our attempt id: found again in the order (sync) and in every event about it.
        custom_id: request.idempotencyKey,
        amount: amountOf(request, options),
        ...(options ? { shipping: { options } } : {}),
        ...(payee ? { payee: { merchant_id: payee } } : {}),
      },
    ],
    payment_source: {
      paypal: {
        experience_context: {
          return_url: returnUrl,
          cancel_url: `${returnUrl}?${CANCEL_MARKER}=1`,
          // The buyer pays on PayPal's page: we authorize (or capture) as soon as they are back.
          user_action: 'PAY_NOW',
        },
      },
    },
  };
}

/** The payer's PayPal account of an approved or completed order: its payer id (`account_id`) and e-mail. */
export function payerOf(order: PaypalOrder): { id: string; email: string | null } | null {
  const paypal = order.payment_source?.paypal;
  const id = typeof paypal?.account_id === 'string' ? paypal.account_id.trim() : '';
  if (!id) return null;
  return { id, email: typeof paypal?.email_address === 'string' ? paypal.email_address : null };
}
