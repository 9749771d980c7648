import { type CartLine, ConnectorError, type PaymentHint } from '../connector.ts';
import { amountOf } from './adyen.requests.ts';

/**
 * The order's lines as Adyen's `lineItems` (Checkout API v71 `LineItem`), which Klarna requires
 * (docs.adyen.com/payment-methods/klarna/invoice-lines): per item its price with and without tax,
 * the tax and its percentage (in minor units: 2100 is 21%), the quantity; a line's discount is a
 * line of its own with a negative amount, as Adyen's page applies discounts. Klarna approves a
 * payment only when its lines add up to the amount, so a cart that does not is refused before any call.
 */

export interface AdyenLineItem {
  id?: string;
  description: string;
  quantity: number;
  amountIncludingTax: number;
  amountExcludingTax: number;
  taxAmount: number;
  taxPercentage: number;
  sku?: string;
  productUrl?: string;
  imageUrl?: string;
}

/** Tax as a percentage of the price without it, in Adyen's minor units (basis points). */
const percentage = (excluding: number, tax: number) => (excluding > 0 ? Math.round((tax * 10000) / excluding) : 0);

interface OurLine {
  item: Omit<AdyenLineItem, 'amountIncludingTax' | 'amountExcludingTax' | 'taxAmount'>;
  including: number;
  tax: number;
}

/**
 * A cart line in our units: per item when its tax divides evenly among its items, else the whole
 * line as one item (`3 × name`), so that no amount is rounded.
 */
function linesOf(line: CartLine): OurLine[] {
  const tax = line.taxAmount ?? 0;
  const extra = {
    ...(line.sku ? { sku: line.sku } : {}),
    ...(line.sku || line.externalIdentifier ? { id: (line.sku ?? line.externalIdentifier)! } : {}),
    ...(line.productUrl ? { productUrl: line.productUrl } : {}),
    ...(line.imageUrl ? { imageUrl: line.imageUrl } : {}),
  };
  const perItem = tax % line.quantity === 0;
  const including = perItem ? line.unitAmount : line.unitAmount * line.quantity;
  const itemTax = perItem ? tax / line.quantity : tax;
  const lines: OurLine[] = [
    {
      item: {
        ...extra,
        description: perItem ? line.name : `${line.quantity} × ${line.name}`,
        quantity: perItem ? line.quantity : 1,
        taxPercentage: percentage(including - itemTax, itemTax),
      },
      including,
      tax: itemTax,
    },
  ];
  if (line.discountAmount)
    lines.push({
      item: { description: `Discount: ${line.name}`, quantity: 1, taxPercentage: 0 },
      including: -line.discountAmount,
      tax: 0,
    });
  return lines;
}

function toAdyen(line: OurLine, currency: string): AdyenLineItem {
  const value = (amount: number) => amountOf(amount, currency).value;
  return {
    ...line.item,
    amountIncludingTax: value(line.including),
    amountExcludingTax: value(line.including - line.tax),
    taxAmount: value(line.tax),
  };
}

const totalOf = (lines: OurLine[]) => lines.reduce((sum, l) => sum + l.including * l.item.quantity, 0);

/** The payment's `lineItems`; refused (`invalid_request`) without lines or when they do not add up to the amount. */
export function paymentLineItems(
  cart: CartLine[] | null | undefined,
  amount: number,
  currency: string,
): AdyenLineItem[] {
  if (!cart || cart.length === 0)
    throw new ConnectorError('invalid_request', 'Klarna needs the order lines: send cart_items with the transaction');
  const lines = cart.flatMap(linesOf);
  const total = totalOf(lines);
  if (total !== amount)
    throw new ConnectorError(
      'invalid_request',
      `Klarna approves only an amount its lines add up to: the cart_items total ${total}, the amount ${amount}`,
    );
  return lines.map((line) => toAdyen(line, currency));
}

/**
 * The `lineItems` of a capture or refund. Of the whole payment: its lines again. Of a part: our API
 * names no items per capture or refund, so one line for that amount, with the cart's share of tax;
 * Adyen requires lines on a partial Klarna capture or refund (else it adds a correction line).
 */
export function modificationLineItems(
  payment: PaymentHint,
  amount: number,
  currency: string,
  kind: 'capture' | 'refund',
): AdyenLineItem[] {
  const lines = (payment.cartItems ?? []).flatMap(linesOf);
  if (amount === payment.authorizedAmount && totalOf(lines) === amount) return lines.map((l) => toAdyen(l, currency));
  const total = totalOf(lines);
  const cartTax = lines.reduce((sum, l) => sum + l.tax * l.item.quantity, 0);
  const tax = total > 0 ? Math.round((amount * cartTax) / total) : 0;
  const part: OurLine = {
    item: {
      description: kind === 'capture' ? 'Partial capture of the order' : 'Partial refund of the order',
      quantity: 1,
      taxPercentage: percentage(amount - tax, tax),
    },
    including: amount,
    tax,
  };
  return [toAdyen(part, currency)];
}
