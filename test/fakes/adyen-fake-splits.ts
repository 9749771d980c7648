import type { FakeAnswer } from './fake-server.ts';

/**
 * An iDEAL `/payments` body as Adyen documents it (docs.adyen.com/payment-methods/ideal/api-only):
 * EUR only, `paymentMethod: {type: "ideal"}` with an optional `issuer`, no manual capture (iDEAL
 * has no separate capture).
 */
export function idealProblem(body: Record<string, any>): FakeAnswer | null {
  const bad = (code: string, message: string): FakeAnswer => ({
    status: 422,
    json: { status: 422, errorCode: code, message, errorType: 'validation' },
  });
  if (body.amount.currency !== 'EUR') return bad('14_012', 'iDEAL takes EUR only');
  const extra = Object.keys(body.paymentMethod).find(
    (k) => k !== 'type' && k !== 'issuer' && k !== 'checkoutAttemptId',
  );
  if (extra) return bad('14_030', `paymentMethod.${extra} is not an iDEAL field`);
  if (body.additionalData?.manualCapture === 'true')
    return bad('fake_ideal_manual_capture', 'iDEAL has no separate capture');
  return null;
}

/**
 * The fake Adyen's check of `splits` on /payments, captures and refunds, from the Checkout API v71
 * `Split` object (https://docs.adyen.com/api-explorer/Checkout/71/post/payments#request-splits)
 * and the split payment guides (classic platforms: the split amounts add up to the payment amount;
 * balance platform: https://docs.adyen.com/marketplaces/split-payments/split-at-authorization).
 * Adyen's own error code for a bad split is not documented: the fake answers 422 `fake_invalid_splits`.
 */

const TYPES = new Set([
  'AcquiringFees',
  'AdyenCommission',
  'AdyenFees',
  'AdyenMarkup',
  'BalanceAccount',
  'Commission',
  'Default',
  'Interchange',
  'MarketPlace',
  'PaymentFee',
  'Remainder',
  'SchemeFee',
  'Surcharge',
  'Tip',
  'TopUp',
  'VAT',
]);
const FIELDS = new Set(['type', 'account', 'amount', 'reference', 'description']);

const invalid = (message: string): FakeAnswer => ({
  status: 422,
  json: { status: 422, errorCode: 'fake_invalid_splits', message, errorType: 'validation' },
});

/** What Adyen would refuse in `splits` (`amount` is the request's `{ value, currency }`), or null. */
export function splitsProblem(splits: unknown, amount: { value: number; currency: string }): FakeAnswer | null {
  if (splits === undefined) return null;
  if (!Array.isArray(splits) || splits.length === 0) return invalid('splits must be a non-empty array');
  let sum = 0;
  for (const [at, item] of splits.entries()) {
    if (typeof item !== 'object' || item === null) return invalid(`splits[${at}] must be an object`);
    const extra = Object.keys(item).find((k) => !FIELDS.has(k));
    if (extra) return invalid(`splits[${at}].${extra} is not a Split field`);
    const { type, account, reference, amount: part } = item as Record<string, any>;
    if (!TYPES.has(type)) return invalid(`splits[${at}].type is invalid`);
    if ((type === 'MarketPlace' || type === 'BalanceAccount') && (typeof account !== 'string' || !reference))
      return invalid(`splits[${at}]: account and reference are required for ${type}`);
    if (part !== undefined) {
      if (!Number.isInteger(part.value)) return invalid(`splits[${at}].amount.value must be an integer`);
      if (part.currency !== undefined && !/^[A-Z]{3}$/.test(part.currency))
        return invalid(`splits[${at}].amount.currency is invalid`);
      if ((part.currency ?? amount.currency) === amount.currency) sum += part.value;
    } else if (type === 'MarketPlace' || type === 'Commission' || type === 'VAT')
      return invalid(`splits[${at}].amount is required for ${type}`);
  }
  const marketplace = splits.some((s) => s.type === 'MarketPlace');
  if (marketplace ? sum !== amount.value : sum > amount.value)
    return invalid(`The split amounts (${sum}) do not match the amount (${amount.value})`);
  return null;
}
