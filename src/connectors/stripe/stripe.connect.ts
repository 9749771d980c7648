import { ConnectorError } from '../connector.ts';
import { toStripeAmount } from './stripe.amounts.ts';

/**
 * Stripe Connect for platforms: `connection_options['stripe-card'].stripe_connect`
 * (`StripeConnectOptions`, snake_case as the API lists it).
 * - Destination charges (https://docs.stripe.com/connect/destination-charges): the PaymentIntent is
 *   created on the platform with `transfer_data[destination]`, optionally `on_behalf_of` (the
 *   connected account is the settlement merchant), `application_fee_amount` (what the platform
 *   keeps) and `transfer_group`.
 * - Direct charges (https://docs.stripe.com/connect/direct-charges): `stripe_account` sends every
 *   call of the payment (its PaymentMethod, the PaymentIntent, captures, cancels, refunds, syncs)
 *   with the `Stripe-Account` header; `application_fee_amount` is the platform's fee.
 * Stripe takes an application fee only with one of the two (`transfer_data` or `Stripe-Account`),
 * and refuses `on_behalf_of`/`transfer_data` on a connected account's own charge.
 */
export interface StripeConnect {
  stripeAccount: string | null;
  applicationFeeAmount: number | null;
  onBehalfOf: string | null;
  destination: string | null;
  transferGroup: string | null;
}

const refuse = (why: string) =>
  new ConnectorError('invalid_request', `connection_options.stripe-card.stripe_connect: ${why}`);

function accountOf(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !value.startsWith('acct_') || value.length > 255)
    throw refuse(`${field} must be a Stripe account id (acct_...)`);
  return value;
}

/** The options' `stripe_connect` checked, or null when the payment is the platform's own. */
export function stripeConnectOf(options: Record<string, unknown> | null): StripeConnect | null {
  const raw = options?.stripe_connect;
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw refuse('must be an object');
  const o = raw as Record<string, unknown>;
  const fee = o.application_fee_amount ?? null;
  if (fee !== null && !(typeof fee === 'number' && Number.isInteger(fee) && fee >= 0))
    throw refuse('application_fee_amount must be a non-negative integer (minor units)');
  const group = o.transfer_group ?? null;
  if (group !== null && (typeof group !== 'string' || group.length === 0 || group.length > 500))
    throw refuse('transfer_group must be a non-empty string');
  const connect: StripeConnect = {
    stripeAccount: accountOf(o.stripe_account, 'stripe_account'),
    applicationFeeAmount: fee as number | null,
    onBehalfOf: accountOf(o.on_behalf_of, 'on_behalf_of'),
    destination: accountOf(o.transfer_data_destination, 'transfer_data_destination'),
    transferGroup: group as string | null,
  };
  if (connect.stripeAccount && (connect.destination || connect.onBehalfOf))
    throw refuse('stripe_account (a direct charge) cannot be combined with transfer_data_destination or on_behalf_of');
  if (connect.applicationFeeAmount !== null && !connect.stripeAccount && !connect.destination)
    throw refuse('application_fee_amount needs stripe_account or transfer_data_destination');
  return connect;
}

/** The PaymentIntent's Connect parameters (destination charge, fee, group), in Stripe's units. */
export function connectIntentParams(
  connect: StripeConnect | null,
  amount: number,
  currency: string,
): Record<string, unknown> {
  if (!connect) return {};
  const params: Record<string, unknown> = {};
  if (connect.applicationFeeAmount !== null) {
    if (connect.applicationFeeAmount > amount)
      throw refuse('application_fee_amount cannot exceed the amount of the payment');
    params.application_fee_amount = toStripeAmount(connect.applicationFeeAmount, currency);
  }
  if (connect.onBehalfOf) params.on_behalf_of = connect.onBehalfOf;
  if (connect.destination) params.transfer_data = { destination: connect.destination };
  if (connect.transferGroup) params.transfer_group = connect.transferGroup;
  return params;
}

/** Request options of every call of a direct charge: the connected account's `Stripe-Account` header. */
export function connectRequestOptions(options: Record<string, unknown> | null): { stripeAccount?: string } {
  const account = stripeConnectOf(options)?.stripeAccount;
  return account ? { stripeAccount: account } : {};
}

/**
 * The Connect parameters of a refund (https://docs.stripe.com/api/refunds/create,
 * https://docs.stripe.com/connect/destination-charges#issue-refunds). By default Stripe refunds a
 * destination charge from the platform's balance and keeps the application fee, so the platform
 * pays the whole refund while the connected account keeps what it was sent. We refund the way
 * platforms expect, each party giving back its share of the refunded amount:
 * - a destination charge (`transfer_data_destination`): `reverse_transfer: true`, Stripe reverses
 *   the transfer to the connected account in proportion to the refunded amount;
 * - a charge with an application fee (destination or direct): `refund_application_fee: true`,
 *   Stripe refunds the fee in the same proportion (all of it with a full refund).
 * `StripeConnectOptions` has no `transfer_data[amount]` (the connected account is sent the whole
 * amount, less the fee), so there is no other share to compute. A direct charge has no transfer
 * to reverse: the connected account refunds from its own balance.
 */
export function connectRefundParams(options: Record<string, unknown> | null): {
  reverse_transfer?: boolean;
  refund_application_fee?: boolean;
} {
  const connect = stripeConnectOf(options);
  if (!connect) return {};
  return {
    ...(connect.destination ? { reverse_transfer: true } : {}),
    ...(connect.applicationFeeAmount ? { refund_application_fee: true } : {}),
  };
}
