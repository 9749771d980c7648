import type { FakeAnswer } from './fake-server.ts';

/**
 * Klarna at the fake Adyen, from docs.adyen.com/payment-methods/klarna/api-only and "Specifying
 * invoice lines and discounts" (payment-methods/klarna/invoice-lines): a payment carries
 * `lineItems` (quantity, description, amountIncludingTax required), and Klarna approves it only when
 * the lines add up to `amount.value`; a partial capture or partial refund carries the lines of that
 * part (quantity, description, amountIncludingTax, amountExcludingTax, taxAmount, taxPercentage).
 * `countryCode` is required. Adyen's own error code for lines that do not add up is not documented:
 * the fake answers 422 `fake_klarna_line_items`.
 */

export const KLARNA_TYPES = new Set(['klarna', 'klarna_account', 'klarna_paynow']);

const bad = (code: string, message: string): FakeAnswer => ({
  status: 422,
  json: { status: 422, errorCode: code, message, errorType: 'validation' },
});

function linesProblem(lines: unknown, value: number, partial: boolean): FakeAnswer | null {
  if (!Array.isArray(lines) || lines.length === 0)
    return bad('fake_klarna_line_items', 'Klarna needs lineItems for this request');
  let sum = 0;
  for (const [at, line] of lines.entries()) {
    const l = line as Record<string, unknown>;
    if (!Number.isInteger(l.quantity) || (l.quantity as number) <= 0 || typeof l.description !== 'string')
      return bad('14_030', `lineItems[${at}]: quantity and description are required`);
    if (!Number.isInteger(l.amountIncludingTax))
      return bad('14_030', `lineItems[${at}].amountIncludingTax is required`);
    if (partial && ['amountExcludingTax', 'taxAmount', 'taxPercentage'].some((k) => !Number.isInteger(l[k])))
      return bad(
        '14_030',
        `lineItems[${at}]: a partial capture or refund needs amounts with and without tax, taxAmount and taxPercentage`,
      );
    if (
      Number.isInteger(l.amountExcludingTax) &&
      Number.isInteger(l.taxAmount) &&
      (l.amountExcludingTax as number) + (l.taxAmount as number) !== l.amountIncludingTax
    )
      return bad(
        'fake_klarna_line_items',
        `lineItems[${at}]: amountExcludingTax + taxAmount is not amountIncludingTax`,
      );
    sum += (l.quantity as number) * (l.amountIncludingTax as number);
  }
  return sum === value ? null : bad('fake_klarna_line_items', `The lineItems add up to ${sum}, the amount is ${value}`);
}

/** What Adyen (or Klarna) would refuse in a Klarna `/payments` body, or null. */
export function klarnaPaymentProblem(body: Record<string, any>): FakeAnswer | null {
  if (!/^[A-Z]{2}$/.test(body.countryCode ?? '')) return bad('14_030', "Required field 'countryCode' is not provided.");
  const extra = Object.keys(body.paymentMethod).find((k) => k !== 'type');
  if (extra) return bad('14_030', `paymentMethod.${extra} is not a Klarna field`);
  return linesProblem(body.lineItems, body.amount.value, false);
}

/** A Klarna capture or refund: lines required when it is partial (they then add up to it); checked when given. */
export function klarnaModificationProblem(body: Record<string, any>, paymentValue: number): FakeAnswer | null {
  const partial = body.amount?.value !== paymentValue;
  if (!partial && body.lineItems === undefined) return null;
  return linesProblem(body.lineItems, body.amount?.value, partial);
}
