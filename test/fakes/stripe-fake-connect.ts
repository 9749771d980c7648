import type { FakeState, Reply } from './stripe-fake-payments.ts';

/**
 * Stripe Connect in the fake, as Stripe documents it
 * (https://docs.stripe.com/api/payment_intents/create, https://docs.stripe.com/connect/destination-charges,
 * https://docs.stripe.com/connect/direct-charges): the form fields `on_behalf_of`,
 * `transfer_data[destination]` (and `transfer_data[amount]`), `application_fee_amount`,
 * `transfer_group`, and the `Stripe-Account` header of a connected account's own charge.
 * Unknown parameters are refused the way Stripe refuses them, so a field sent in another form
 * (`transfer_data_destination`, a JSON string) fails.
 */

type Obj = Record<string, unknown>;

const invalid = (message: string, param: string): Reply => ({
  status: 400,
  body: { error: { type: 'invalid_request_error', message, param } },
});

/** The parameters of `POST /v1/payment_intents` the connector may send. */
const KNOWN = new Set([
  'amount',
  'currency',
  'capture_method',
  'confirm',
  'payment_method',
  'allowed_payment_method_types',
  'customer',
  'off_session',
  'return_url',
  'error_on_requires_action',
  'payment_method_options',
  'metadata',
  'expand',
  'on_behalf_of',
  'transfer_data',
  'application_fee_amount',
  'transfer_group',
]);

const isAccount = (v: unknown) => typeof v === 'string' && v.startsWith('acct_') && v.length > 5;
const isCount = (v: unknown) => typeof v === 'string' && /^\d+$/.test(v);

/** What Stripe refuses in a PaymentIntent's Connect fields, or null. */
export function connectProblem(body: Obj, account: string | null): Reply | null {
  const unknown = Object.keys(body).find((k) => !KNOWN.has(k));
  if (unknown) return invalid(`Received unknown parameter: ${unknown}`, unknown);
  if (account !== null && !isAccount(account)) return invalid('Stripe-Account must be an acct_ id', 'stripe_account');
  if (body.on_behalf_of !== undefined && !isAccount(body.on_behalf_of))
    return invalid('on_behalf_of must be a connected account id', 'on_behalf_of');
  const transfer = body.transfer_data;
  if (transfer !== undefined) {
    if (typeof transfer !== 'object' || transfer === null) return invalid('Invalid object', 'transfer_data');
    const t = transfer as Obj;
    const extra = Object.keys(t).find((k) => k !== 'destination' && k !== 'amount');
    if (extra) return invalid(`Received unknown parameter: transfer_data[${extra}]`, `transfer_data[${extra}]`);
    if (!isAccount(t.destination))
      return invalid('Missing required param: transfer_data[destination].', 'transfer_data[destination]');
    if (t.amount !== undefined && (!isCount(t.amount) || Number(t.amount) > Number(body.amount)))
      return invalid('transfer_data[amount] must not exceed the amount', 'transfer_data[amount]');
  }
  if (account !== null && (transfer !== undefined || body.on_behalf_of !== undefined))
    return invalid('on_behalf_of and transfer_data cannot be used on a connected account', 'transfer_data');
  const fee = body.application_fee_amount;
  if (fee !== undefined) {
    if (!isCount(fee)) return invalid('Invalid integer: application_fee_amount', 'application_fee_amount');
    if (transfer === undefined && account === null)
      return invalid(
        'Can only apply an application_fee_amount when the PaymentIntent is attempting a direct payment (using an OAuth key or Stripe-Account header) or destination payment (using `transfer_data[destination]`).',
        'application_fee_amount',
      );
    if (Number(fee) > Number(body.amount))
      return invalid('application_fee_amount must be less than or equal to the amount', 'application_fee_amount');
  }
  if (body.transfer_group !== undefined && typeof body.transfer_group !== 'string')
    return invalid('Invalid string: transfer_group', 'transfer_group');
  return null;
}

/** The Connect fields a PaymentIntent keeps (numbers as Stripe answers them). */
export function connectFieldsOf(body: Obj, account: string | null): Obj {
  const transfer = body.transfer_data as Obj | undefined;
  return {
    on_behalf_of: body.on_behalf_of ?? null,
    transfer_data: transfer
      ? { destination: transfer.destination, ...(transfer.amount ? { amount: Number(transfer.amount) } : {}) }
      : null,
    application_fee_amount: body.application_fee_amount === undefined ? null : Number(body.application_fee_amount),
    transfer_group: body.transfer_group ?? null,
    _account: account,
  };
}

/** Stripe answers an object of another account (or of the platform, asked with a header) as missing. */
export function otherAccount(object: Obj | undefined, account: string | null, kind: string, id: string): Reply | null {
  if (!object || ((object._account as string | null | undefined) ?? null) === account) return null;
  return {
    status: 404,
    body: { error: { type: 'invalid_request_error', message: `No such ${kind}: '${id}'`, code: 'resource_missing' } },
  };
}

const FLAGS = ['reverse_transfer', 'refund_application_fee'] as const;

/**
 * What Stripe refuses in a refund's Connect parameters (https://docs.stripe.com/api/refunds/create):
 * `reverse_transfer` and `refund_application_fee` are booleans; a transfer is reversed only for a
 * charge that made one (a destination charge, `transfer_data`), and an application fee refunded only
 * for a charge that took one.
 */
export function refundConnectProblem(body: Obj, intent: Obj): Reply | null {
  for (const flag of FLAGS)
    if (body[flag] !== undefined && body[flag] !== 'true' && body[flag] !== 'false')
      return invalid(`Invalid boolean: ${String(body[flag])}`, flag);
  if (body.reverse_transfer === 'true' && !intent.transfer_data)
    return invalid(
      'This charge has no transfer to reverse (reverse_transfer is for destination charges)',
      'reverse_transfer',
    );
  if (body.refund_application_fee === 'true' && (intent.application_fee_amount ?? null) === null)
    return invalid('This charge has no application fee to refund', 'refund_application_fee');
  return null;
}

/**
 * What a refund does to a Connect charge, as Stripe documents it: the transfer reversed and the
 * application fee refunded in proportion to the refunded amount (all of them with a full refund);
 * nothing of either without the flags (the platform pays the refund and keeps its fee).
 */
export function refundConnectEffects(body: Obj, intent: Obj, amount: number) {
  const total = Number(intent.amount);
  const transfer = intent.transfer_data as Obj | null | undefined;
  const transferred = transfer ? Number(transfer.amount ?? total) : 0;
  const fee = Number(intent.application_fee_amount ?? 0);
  return {
    transferReversed: body.reverse_transfer === 'true' ? Math.round((amount * transferred) / total) : 0,
    applicationFeeRefunded: body.refund_application_fee === 'true' ? Math.round((amount * fee) / total) : 0,
  };
}

/** `POST /v1/refunds` (`create`: the fake's refund), with a Connect charge's transfer reversal and fee refund. */
export function refundWithConnect(state: FakeState, body: Obj, create: (state: FakeState, body: Obj) => Reply): Reply {
  const intent = state.intents.get(String(body.payment_intent ?? ''));
  const problem = intent ? refundConnectProblem(body, intent) : null;
  if (problem) return problem;
  const reply = create(state, body);
  const refund = reply.body as Obj;
  if (reply.status !== 200 || !intent) return reply;
  const effects = refundConnectEffects(body, intent, Number(refund.amount));
  if (effects.transferReversed) refund.transfer_reversal = `trr_${String(refund.id).slice(3)}`;
  state.connectRefunds.set(String(refund.id), effects);
  return reply;
}
