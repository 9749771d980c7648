import { describe, expect, it } from 'vitest';
import type { CartLine } from '../connector.ts';
import { modificationLineItems, paymentLineItems } from './adyen.line-items.ts';

const line = (over: Partial<CartLine>): CartLine => ({
  name: 'Item',
  quantity: 1,
  unitAmount: 100,
  discountAmount: null,
  taxAmount: null,
  sku: null,
  externalIdentifier: null,
  productUrl: null,
  imageUrl: null,
  ...over,
});

describe('happy', () => {
  it('sends each item with its tax per item and its percentage in basis points, and a discount as a negative line', () => {
    const items = paymentLineItems(
      [line({ name: 'Lamp', quantity: 2, unitAmount: 119, taxAmount: 38, sku: 'L1' }), line({ discountAmount: 20 })],
      318,
      'EUR',
    );
    expect(items).toEqual([
      {
        id: 'L1',
        sku: 'L1',
        description: 'Lamp',
        quantity: 2,
        amountIncludingTax: 119,
        taxAmount: 19,
        amountExcludingTax: 100,
        taxPercentage: 1900,
      },
      {
        description: 'Item',
        quantity: 1,
        amountIncludingTax: 100,
        taxAmount: 0,
        amountExcludingTax: 100,
        taxPercentage: 0,
      },
      {
        description: 'Discount: Item',
        quantity: 1,
        amountIncludingTax: -20,
        taxAmount: 0,
        amountExcludingTax: -20,
        taxPercentage: 0,
      },
    ]);
  });

  it('sends a line whose tax does not divide among its items as one item, rounding nothing', () => {
    const [item] = paymentLineItems([line({ name: 'Cup', quantity: 3, unitAmount: 100, taxAmount: 50 })], 300, 'EUR');
    expect(item).toMatchObject({ description: '3 × Cup', quantity: 1, amountIncludingTax: 300, taxAmount: 50 });
  });

  it("sends a whole capture's lines again, and a part as one line with the cart's share of tax", () => {
    const payment = {
      method: 'klarna',
      bin: null,
      last4: null,
      authorizedAmount: 1000,
      cartItems: [line({ unitAmount: 1000, taxAmount: 200 })],
    };
    expect(modificationLineItems(payment, 1000, 'EUR', 'capture')).toHaveLength(1);
    expect(modificationLineItems(payment, 1000, 'EUR', 'capture')[0]).toMatchObject({ description: 'Item' });
    expect(modificationLineItems(payment, 400, 'EUR', 'refund')).toEqual([
      {
        description: 'Partial refund of the order',
        quantity: 1,
        amountIncludingTax: 400,
        taxAmount: 80,
        amountExcludingTax: 320,
        taxPercentage: 2500,
      },
    ]);
  });
});

describe('errors', () => {
  it('refuses a payment without lines, or with lines that do not add up to its amount', () => {
    expect(() => paymentLineItems(null, 100, 'EUR')).toThrow(/cart_items/);
    expect(() => paymentLineItems([line({})], 101, 'EUR')).toThrow(/total 100, the amount 101/);
  });
});
