import { isCurrency } from '../../lib/currencies.ts';
import { ConnectorError } from '../connector.ts';
import { amountOf } from './adyen.requests.ts';

/**
 * Split payments for marketplaces: `connection_options['adyen-card'].splits` (`AdyenSplitsOptions`:
 * `authorization`, `capture`, `refund`, each a list of Adyen split items) → the `splits` array of
 * `POST /payments`, `/payments/{pspReference}/captures` and `/payments/{pspReference}/refunds`.
 * An item is Adyen's own shape (Checkout API v71 `Split`,
 * https://docs.adyen.com/api-explorer/Checkout/71/post/payments#request-splits;
 * https://docs.adyen.com/marketplaces/split-payments/split-at-authorization;
 * https://docs.adyen.com/classic-platforms/processing-payments):
 * `{ type, account?, amount?: { value, currency? }, reference?, description? }`, with `amount.value`
 * in our minor units like the payment's amount (converted to Adyen's like it).
 * Checked as Adyen documents:
 * - `type` one of Adyen's split types;
 * - `account` and `reference` required for `MarketPlace` (classic platforms) and `BalanceAccount`
 *   (balance platform);
 * - `amount` required for the types that book a known part (`MarketPlace`, `BalanceAccount`,
 *   `Commission`, `Default`, `VAT`, `PaymentFee` in classic platforms); fee types and `Remainder`
 *   may go without (their amount is not known at the time of payment);
 * - classic platforms (any `MarketPlace` item): every item has an amount and they add up to the
 *   amount of the operation exactly; otherwise the items with an amount in the operation's
 *   currency cannot exceed it (the rest is booked to the liable account).
 */

export const ADYEN_SPLIT_TYPES = [
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
] as const;
type SplitType = (typeof ADYEN_SPLIT_TYPES)[number];

const NEEDS_ACCOUNT: ReadonlySet<SplitType> = new Set(['MarketPlace', 'BalanceAccount']);
const NEEDS_AMOUNT: ReadonlySet<SplitType> = new Set(['MarketPlace', 'BalanceAccount', 'Commission', 'Default', 'VAT']);

export type SplitOperation = 'authorization' | 'capture' | 'refund';

const refuse = (operation: SplitOperation, why: string) =>
  new ConnectorError('invalid_request', `connection_options.adyen-card.splits.${operation}: ${why}`);

interface SplitItem {
  type: SplitType;
  account?: string;
  amount?: { value: number; currency: string };
  reference?: string;
  description?: string;
}

const optionalString = (item: Record<string, unknown>, field: string, operation: SplitOperation, at: number) => {
  const value = item[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 255)
    throw refuse(operation, `item ${at}: ${field} must be a non-empty string`);
  return value;
};

function itemOf(raw: unknown, at: number, operation: SplitOperation, currency: string): SplitItem {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw refuse(operation, `item ${at} must be an object`);
  const item = raw as Record<string, unknown>;
  const type = item.type as SplitType;
  if (!ADYEN_SPLIT_TYPES.includes(type)) throw refuse(operation, `item ${at}: type must be one of Adyen's split types`);
  const account = optionalString(item, 'account', operation, at);
  const reference = optionalString(item, 'reference', operation, at);
  const description = optionalString(item, 'description', operation, at);
  if (NEEDS_ACCOUNT.has(type) && (!account || !reference))
    throw refuse(operation, `item ${at}: a ${type} split needs an account and a reference`);
  const amount = splitAmountOf(item.amount, at, operation, currency);
  if (!amount && NEEDS_AMOUNT.has(type)) throw refuse(operation, `item ${at}: a ${type} split needs an amount`);
  return {
    type,
    ...(account ? { account } : {}),
    ...(amount ? { amount } : {}),
    ...(reference ? { reference } : {}),
    ...(description ? { description } : {}),
  };
}

function splitAmountOf(
  raw: unknown,
  at: number,
  operation: SplitOperation,
  currency: string,
): { value: number; currency: string } | undefined {
  if (raw === undefined || raw === null) return undefined;
  const amount = raw as { value?: unknown; currency?: unknown };
  if (typeof amount !== 'object' || !Number.isInteger(amount.value) || (amount.value as number) < 0)
    throw refuse(operation, `item ${at}: amount.value must be a non-negative integer (minor units)`);
  const of = amount.currency ?? currency;
  if (typeof of !== 'string' || !isCurrency(of))
    throw refuse(operation, `item ${at}: amount.currency must be ISO 4217`);
  return { value: amount.value as number, currency: of };
}

/**
 * The checked split items of one operation (our minor units), or null when the options give none.
 * `amount` and `currency` are the operation's (the authorization's, this capture's, this refund's).
 */
export function splitsOf(
  options: Record<string, unknown> | null,
  operation: SplitOperation,
  amount: number,
  currency: string,
): SplitItem[] | null {
  const all = options?.splits;
  if (all === undefined || all === null) return null;
  if (typeof all !== 'object' || Array.isArray(all))
    throw new ConnectorError('invalid_request', 'connection_options.adyen-card.splits must be an object');
  const list = (all as Record<string, unknown>)[operation];
  if (list === undefined || list === null) return null;
  if (!Array.isArray(list) || list.length === 0 || list.length > 100)
    throw refuse(operation, 'must be a list of 1 to 100 split items');
  const items = list.map((raw, at) => itemOf(raw, at, operation, currency));
  const sum = items
    .filter((i) => i.amount?.currency === currency)
    .reduce((total, i) => total + (i.amount?.value ?? 0), 0);
  if (items.some((i) => i.type === 'MarketPlace')) {
    if (items.some((i) => !i.amount)) throw refuse(operation, 'with MarketPlace splits every item needs an amount');
    if (items.some((i) => i.amount?.currency !== currency) || sum !== amount)
      throw refuse(operation, `the split amounts must add up to the amount (${amount} ${currency}), not ${sum}`);
  } else if (sum > amount) throw refuse(operation, `the split amounts (${sum}) exceed the amount (${amount})`);
  return items;
}

/** `splits` of an Adyen request body, amounts in Adyen's minor units; `{}` without splits. */
export function splitsBody(
  options: Record<string, unknown> | null,
  operation: SplitOperation,
  amount: number,
  currency: string,
): { splits?: Record<string, unknown>[] } {
  const items = splitsOf(options, operation, amount, currency);
  if (!items) return {};
  return {
    splits: items.map((item) =>
      item.amount ? { ...item, amount: amountOf(item.amount.value, item.amount.currency) } : { ...item },
    ),
  };
}
